/* The run record's writer: DIR/samples.msgpack, appended as a run goes. */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <msgpack.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/store/record.h"
#include "proto/log.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

/* ---- writing ---------------------------------------------------------- */

/* One record being packed: a map whose first key is "t", its type. */
struct rec_w {
	msgpack_sbuffer	sb;
	msgpack_packer	pk;
};

static void	rec_str(msgpack_packer *, const char *);

/* Starts a record of type t with nkeys keys, "t" counted. */
static void
rec_begin(struct rec_w *w, size_t nkeys, const char *t)
{
	msgpack_sbuffer_init(&w->sb);
	msgpack_packer_init(&w->pk, &w->sb, msgpack_sbuffer_write);
	msgpack_pack_map(&w->pk, nkeys);
	rec_str(&w->pk, "t");
	rec_str(&w->pk, t);
}

static void
rec_str(msgpack_packer *pk, const char *s)
{
	size_t	len = strlen(s);

	msgpack_pack_str(pk, len);
	msgpack_pack_str_body(pk, s, len);
}

static void
rec_kstr(msgpack_packer *pk, const char *k, const char *v)
{
	rec_str(pk, k);
	rec_str(pk, v);
}

static void
rec_kuint(msgpack_packer *pk, const char *k, uint64_t v)
{
	rec_str(pk, k);
	msgpack_pack_uint64(pk, v);
}

static void
rec_kint(msgpack_packer *pk, const char *k, int64_t v)
{
	rec_str(pk, k);
	msgpack_pack_int64(pk, v);
}

static void
rec_kdouble(msgpack_packer *pk, const char *k, double v)
{
	rec_str(pk, k);
	msgpack_pack_double(pk, v);
}

/* Writes one packed record with a single write(); returns 0 or -1. */
static int
rec_flush(struct record *r, msgpack_sbuffer *sb)
{
	const char	*p = sb->data;
	size_t		 left = sb->size;
	ssize_t		 n;
	int		 rv = 0;

	pthread_mutex_lock(&r->mtx);
	if (r->failed) {
		rv = -1;
		goto out;
	}
	while (left > 0) {
		n = write(r->fd, p, left);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(r->err, sizeof r->err, "write %s: %s", r->path,
			    n == 0 ? "short write" : strerror(errno));
			r->failed = 1;
			/* Cut back to the last whole record. */
			if (ftruncate(r->fd, lseek(r->fd, 0, SEEK_CUR) -
			    (off_t)(sb->size - left)) == -1)
				log_warn("truncate %s", r->path);
			rv = -1;
			goto out;
		}
		p += n;
		left -= (size_t)n;
	}
out:
	pthread_mutex_unlock(&r->mtx);
	msgpack_sbuffer_destroy(sb);
	return (rv);
}

/*
 * Writes the record's last record (its end, or the coordinator's detach),
 * makes it durable and closes the record; returns 0 or -1 with r->err.
 */
static int
rec_last(struct record *r, struct rec_w *w)
{
	int	rv;

	rv = rec_flush(r, &w->sb);
	if (fsync(r->fd) == -1 && rv == 0) {
		snprintf(r->err, sizeof r->err, "fsync %s: %s", r->path,
		    strerror(errno));
		rv = -1;
	}
	if (close(r->fd) == -1 && rv == 0) {
		snprintf(r->err, sizeof r->err, "close %s: %s", r->path,
		    strerror(errno));
		rv = -1;
	}
	r->fd = -1;
	pthread_mutex_destroy(&r->mtx);
	return (rv);
}

int
record_open(struct record *r, const char *dir, char **cause)
{
	memset(r, 0, sizeof *r);
	pthread_mutex_init(&r->mtx, NULL);
	snprintf(r->path, sizeof r->path, "%s/%s", dir, RECORD_FILE);
	/* Never through a planted link; not world-readable (suite env). */
	r->fd = open(r->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (r->fd == -1) {
		xasprintf(cause, "%s: %s", r->path, strerror(errno));
		pthread_mutex_destroy(&r->mtx);
		return (-1);
	}
	/* Held while the run goes: orch status tells a live coordinator. */
	if (flock(r->fd, LOCK_EX | LOCK_NB) == -1)
		log_warn("flock %s", r->path);
	return (0);
}

int
record_reopen(struct record *r, const char *dir, uint64_t good_len,
    char **cause)
{
	memset(r, 0, sizeof *r);
	pthread_mutex_init(&r->mtx, NULL);
	snprintf(r->path, sizeof r->path, "%s/%s", dir, RECORD_FILE);
	r->fd = open(r->path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (r->fd != -1 && flock(r->fd, LOCK_EX | LOCK_NB) == -1) {
		xasprintf(cause, "%s: another orch is running this run now "
		    "(orch status %s tells its progress)", r->path, dir);
		close(r->fd);
		pthread_mutex_destroy(&r->mtx);
		return (-1);
	}
	if (r->fd == -1 || ftruncate(r->fd, (off_t)good_len) == -1) {
		xasprintf(cause, "%s: %s", r->path, strerror(errno));
		if (r->fd != -1)
			close(r->fd);
		pthread_mutex_destroy(&r->mtx);
		return (-1);
	}
	return (0);
}

int
record_resume(struct record *r, const char *at)
{
	struct rec_w	w;

	rec_begin(&w, 2, "resume");
	rec_kstr(&w.pk, "at", at);
	return (rec_flush(r, &w.sb));
}

int
record_run(struct record *r, const char *run_id, const struct suite *s,
    uint64_t seed, const char *cmdline, const char *started,
    const struct host *hosts, size_t nhosts)
{
	struct rec_w	 w;
	size_t		 i, j;

	rec_begin(&w, s->auto_rounds ? 23 : 20, "run");
	if (s->auto_rounds) {
		/* rounds = auto: "rounds" is max_rounds. */
		rec_kuint(&w.pk, "auto", 1);
		rec_kuint(&w.pk, "min_rounds", s->min_rounds);
		rec_kuint(&w.pk, "budget_s", s->budget_s);
	}
	rec_str(&w.pk, "hosts");
	msgpack_pack_array(&w.pk, nhosts);
	for (i = 0; i < nhosts; i++)
		rec_str(&w.pk, hosts[i].name);
	rec_kuint(&w.pk, "subtract_floor", (uint64_t)s->subtract_floor);
	rec_kstr(&w.pk, "counters", s->counters);
	rec_kuint(&w.pk, "retries", s->retries);
	rec_kdouble(&w.pk, "max_load", s->max_load);
	rec_kstr(&w.pk, "run_id", run_id);
	rec_kstr(&w.pk, "orch_version", ORCH_VERSION);
	rec_kstr(&w.pk, "suite", s->name);
	rec_kstr(&w.pk, "suite_path", s->path);
	rec_kstr(&w.pk, "suite_text", s->text);
	rec_kstr(&w.pk, "cmdline", cmdline);
	rec_kstr(&w.pk, "started", started);
	rec_kuint(&w.pk, "seed", seed);
	rec_kdouble(&w.pk, "min_effect", s->min_effect);
	rec_kuint(&w.pk, "rounds", s->rounds);
	rec_kuint(&w.pk, "warmup", s->warmup);
	rec_kuint(&w.pk, "reference", s->ref);
	rec_str(&w.pk, "variants");
	msgpack_pack_array(&w.pk, s->nvariants);
	for (i = 0; i < s->nvariants; i++)
		rec_str(&w.pk, s->variants[i].name);
	rec_str(&w.pk, "benches");
	msgpack_pack_array(&w.pk, s->nbenches);
	for (i = 0; i < s->nbenches; i++) {
		msgpack_pack_map(&w.pk, 4);
		rec_kstr(&w.pk, "name", s->benches[i].name);
		rec_kstr(&w.pk, "checksum", s->benches[i].checksum);
		rec_str(&w.pk, "metrics");
		msgpack_pack_array(&w.pk, s->benches[i].nmetrics);
		for (j = 0; j < s->benches[i].nmetrics; j++)
			rec_str(&w.pk, s->benches[i].metrics[j].name);
		rec_str(&w.pk, "higher");
		msgpack_pack_array(&w.pk, s->benches[i].nmetrics);
		for (j = 0; j < s->benches[i].nmetrics; j++) {
			if (s->benches[i].metrics[j].higher)
				msgpack_pack_true(&w.pk);
			else
				msgpack_pack_false(&w.pk);
		}
	}
	return (rec_flush(r, &w.sb));
}

int
record_host(struct record *r, const struct host *h)
{
	struct rec_w			 w;
	const struct proto_facts	*f = &h->facts;
	size_t				 i;

	rec_begin(&w, 14, "host");
	rec_kstr(&w.pk, "host", h->name);
	rec_kstr(&w.pk, "agent_version", h->agent_version);
	rec_kstr(&w.pk, "os", f->os);
	rec_kstr(&w.pk, "arch", f->arch);
	rec_kstr(&w.pk, "cpu_model", f->cpu_model);
	rec_kstr(&w.pk, "kernel", f->kernel);
	rec_kstr(&w.pk, "hostname", f->hostname);
	rec_kstr(&w.pk, "workdir", f->workdir);
	rec_kuint(&w.pk, "cores", f->cores);
	rec_kuint(&w.pk, "mem_kb", f->mem_kb);
	rec_str(&w.pk, "load");
	msgpack_pack_array(&w.pk, 3);
	for (i = 0; i < 3; i++)
		msgpack_pack_double(&w.pk, f->load[i]);
	rec_kstr(&w.pk, "kind", h->ops != NULL ? h->ops->kind : "");
	rec_str(&w.pk, "extra");
	msgpack_pack_map(&w.pk, f->nextra);
	for (i = 0; i < f->nextra; i++)
		rec_kstr(&w.pk, f->extra[i].key, f->extra[i].value);
	return (rec_flush(r, &w.sb));
}

int
record_busy(const char *dir)
{
	char	path[1024];
	int	fd, r = 0;

	snprintf(path, sizeof path, "%s/%s", dir, RECORD_FILE);
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return (0);
	if (flock(fd, LOCK_SH | LOCK_NB) == -1 && errno == EWOULDBLOCK)
		r = 1;
	close(fd);
	return (r);
}

int
record_opts(struct record *r, double max_load)
{
	struct rec_w	w;

	rec_begin(&w, 2, "opts");
	rec_kdouble(&w.pk, "max_load", max_load >= 0 ? max_load : -1);
	return (rec_flush(r, &w.sb));
}

int
record_label(struct record *r, const char *key, const char *value)
{
	struct rec_w	w;

	rec_begin(&w, 3, "label");
	rec_kstr(&w.pk, "key", key);
	rec_kstr(&w.pk, "value", value);
	return (rec_flush(r, &w.sb));
}

int
record_plan(struct record *r, const struct host *h, const struct proto_plan *p)
{
	struct rec_w	w;

	rec_begin(&w, 6, "plan");
	rec_kstr(&w.pk, "host", h->name);
	rec_kstr(&w.pk, "workdir", h->workdir);
	rec_kdouble(&w.pk, "max_load", p->max_load);
	rec_kuint(&w.pk, "load_wait_ms", p->load_wait_ms);
	rec_kstr(&w.pk, "pin", p->pin);
	return (rec_flush(r, &w.sb));
}

int
record_detach(struct record *r, const char *at)
{
	struct rec_w	w;

	rec_begin(&w, 2, "detach");
	rec_kstr(&w.pk, "at", at);
	return (rec_last(r, &w));
}

int
record_file(struct record *r, const char *host, const char *variant,
    const char *role, const char *path, const char *sha, int fresh)
{
	struct rec_w	w;

	rec_begin(&w, 7, "file");
	rec_kuint(&w.pk, "fresh", fresh ? 1 : 0);
	rec_kstr(&w.pk, "host", host);
	rec_kstr(&w.pk, "variant", variant);
	rec_kstr(&w.pk, "role", role);
	rec_kstr(&w.pk, "path", path);
	rec_kstr(&w.pk, "sha256", sha);
	return (rec_flush(r, &w.sb));
}

int
record_hostprog(struct record *r, const char *host, const char *variant,
    const char *role, const struct proto_prog *pg)
{
	struct rec_w	w;

	rec_begin(&w, 9, "file");
	rec_kuint(&w.pk, "fresh", 0);
	rec_kstr(&w.pk, "host", host);
	rec_kstr(&w.pk, "variant", variant);
	rec_kstr(&w.pk, "role", role);
	rec_kstr(&w.pk, "path", pg->path);
	rec_kstr(&w.pk, "sha256", pg->sha);
	rec_kstr(&w.pk, "host_prog", pg->prog);
	rec_kstr(&w.pk, "version", pg->version);
	return (rec_flush(r, &w.sb));
}

int
record_sample(struct record *r, const char *host, const char *bench,
    const char *variant, const struct proto_sample *smp)
{
	struct rec_w	w;
	size_t		i;

	rec_begin(&w, 22 + (smp->has_checksum ? 1 : 0), "sample");
	rec_kstr(&w.pk, "host", host);
	rec_kstr(&w.pk, "bench", bench);
	rec_kstr(&w.pk, "variant", variant);
	rec_kuint(&w.pk, "round", smp->round);
	rec_kuint(&w.pk, "attempt", smp->attempt);
	rec_kuint(&w.pk, "seq", smp->seq);
	rec_kuint(&w.pk, "warmup", smp->warmup);
	rec_kstr(&w.pk, "status", proto_status_name(smp->status));
	rec_kint(&w.pk, "exit", smp->exit_code);
	rec_kint(&w.pk, "signal", smp->signal);
	rec_kdouble(&w.pk, "load1", smp->load1);
	rec_kint(&w.pk, "start_ns", smp->start_ns);
	rec_kuint(&w.pk, "wall_ns", smp->wall_ns);
	rec_kuint(&w.pk, "user_ns", smp->user_ns);
	rec_kuint(&w.pk, "sys_ns", smp->sys_ns);
	rec_kuint(&w.pk, "maxrss_kb", smp->maxrss_kb);
	rec_kuint(&w.pk, "nvcsw", smp->nvcsw);
	rec_kuint(&w.pk, "nivcsw", smp->nivcsw);
	rec_kstr(&w.pk, "err", smp->err_tail);
	rec_kuint(&w.pk, "step", smp->step);
	rec_str(&w.pk, "metrics");
	msgpack_pack_map(&w.pk, smp->nmetrics);
	for (i = 0; i < smp->nmetrics; i++) {
		rec_str(&w.pk, smp->metrics[i].key);
		msgpack_pack_double(&w.pk, smp->metrics[i].value);
	}
	if (smp->has_checksum)
		rec_kstr(&w.pk, "checksum", smp->checksum);
	return (rec_flush(r, &w.sb));
}

int
record_state(struct record *r, const char *host, const struct proto_state *st)
{
	struct rec_w	w;

	rec_begin(&w, 6, "state");
	rec_kstr(&w.pk, "host", host);
	rec_kstr(&w.pk, "state", st->state);
	rec_kstr(&w.pk, "detail", st->detail);
	rec_kdouble(&w.pk, "load1", st->load1);
	rec_kuint(&w.pk, "waited_ms", st->waited_ms);
	return (rec_flush(r, &w.sb));
}

int
record_hostend(struct record *r, const struct host *h)
{
	struct rec_w	w;

	rec_begin(&w, 6, "hostend");
	rec_kstr(&w.pk, "host", h->name);
	rec_kuint(&w.pk, "pushed_bytes", h->pushed);
	rec_kuint(&w.pk, "pushed_files", h->npushed);
	rec_kstr(&w.pk, "status", h->status == HOST_OK ? "ok" : "failed");
	rec_kstr(&w.pk, "error", h->error);
	return (rec_flush(r, &w.sb));
}

int
record_close(struct record *r, const char *ended)
{
	struct rec_w	w;

	rec_begin(&w, 2, "end");
	rec_kstr(&w.pk, "ended", ended);
	return (rec_last(r, &w));
}
