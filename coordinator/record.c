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

#include "coordinator/host.h"
#include "coordinator/record.h"
#include "coordinator/suite.h"
#include "proto/log.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

/* ---- writing ---------------------------------------------------------- */

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
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 2);
	rec_kstr(&pk, "t", "resume");
	rec_kstr(&pk, "at", at);
	return (rec_flush(r, &sb));
}

int
record_run(struct record *r, const char *run_id, const struct suite *s,
    uint64_t seed, const char *cmdline, const char *started,
    const struct host *hosts, size_t nhosts)
{
	msgpack_sbuffer	 sb;
	msgpack_packer	 pk;
	size_t		 i, j;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, s->auto_rounds ? 23 : 20);
	rec_kstr(&pk, "t", "run");
	if (s->auto_rounds) {
		/* rounds = auto: "rounds" is max_rounds. */
		rec_kuint(&pk, "auto", 1);
		rec_kuint(&pk, "min_rounds", s->min_rounds);
		rec_kuint(&pk, "budget_s", s->budget_s);
	}
	rec_str(&pk, "hosts");
	msgpack_pack_array(&pk, nhosts);
	for (i = 0; i < nhosts; i++)
		rec_str(&pk, hosts[i].name);
	rec_kuint(&pk, "subtract_floor", (uint64_t)s->subtract_floor);
	rec_kstr(&pk, "counters", s->counters);
	rec_kuint(&pk, "retries", s->retries);
	rec_kdouble(&pk, "max_load", s->max_load);
	rec_kstr(&pk, "run_id", run_id);
	rec_kstr(&pk, "orch_version", ORCH_VERSION);
	rec_kstr(&pk, "suite", s->name);
	rec_kstr(&pk, "suite_path", s->path);
	rec_kstr(&pk, "suite_text", s->text);
	rec_kstr(&pk, "cmdline", cmdline);
	rec_kstr(&pk, "started", started);
	rec_kuint(&pk, "seed", seed);
	rec_kdouble(&pk, "min_effect", s->min_effect);
	rec_kuint(&pk, "rounds", s->rounds);
	rec_kuint(&pk, "warmup", s->warmup);
	rec_kuint(&pk, "reference", s->ref);
	rec_str(&pk, "variants");
	msgpack_pack_array(&pk, s->nvariants);
	for (i = 0; i < s->nvariants; i++)
		rec_str(&pk, s->variants[i].name);
	rec_str(&pk, "benches");
	msgpack_pack_array(&pk, s->nbenches);
	for (i = 0; i < s->nbenches; i++) {
		msgpack_pack_map(&pk, 4);
		rec_kstr(&pk, "name", s->benches[i].name);
		rec_kstr(&pk, "checksum", s->benches[i].checksum);
		rec_str(&pk, "metrics");
		msgpack_pack_array(&pk, s->benches[i].nmetrics);
		for (j = 0; j < s->benches[i].nmetrics; j++)
			rec_str(&pk, s->benches[i].metrics[j].name);
		rec_str(&pk, "higher");
		msgpack_pack_array(&pk, s->benches[i].nmetrics);
		for (j = 0; j < s->benches[i].nmetrics; j++) {
			if (s->benches[i].metrics[j].higher)
				msgpack_pack_true(&pk);
			else
				msgpack_pack_false(&pk);
		}
	}
	return (rec_flush(r, &sb));
}

int
record_host(struct record *r, const struct host *h)
{
	msgpack_sbuffer			 sb;
	msgpack_packer			 pk;
	const struct proto_facts	*f = &h->facts;
	size_t				 i;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 14);
	rec_kstr(&pk, "t", "host");
	rec_kstr(&pk, "host", h->name);
	rec_kstr(&pk, "agent_version", h->agent_version);
	rec_kstr(&pk, "os", f->os);
	rec_kstr(&pk, "arch", f->arch);
	rec_kstr(&pk, "cpu_model", f->cpu_model);
	rec_kstr(&pk, "kernel", f->kernel);
	rec_kstr(&pk, "hostname", f->hostname);
	rec_kstr(&pk, "workdir", f->workdir);
	rec_kuint(&pk, "cores", f->cores);
	rec_kuint(&pk, "mem_kb", f->mem_kb);
	rec_str(&pk, "load");
	msgpack_pack_array(&pk, 3);
	for (i = 0; i < 3; i++)
		msgpack_pack_double(&pk, f->load[i]);
	rec_kstr(&pk, "kind", h->ops != NULL ? h->ops->kind : "");
	rec_str(&pk, "extra");
	msgpack_pack_map(&pk, f->nextra);
	for (i = 0; i < f->nextra; i++)
		rec_kstr(&pk, f->extra[i].key, f->extra[i].value);
	return (rec_flush(r, &sb));
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
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 2);
	rec_kstr(&pk, "t", "opts");
	rec_kdouble(&pk, "max_load", max_load >= 0 ? max_load : -1);
	return (rec_flush(r, &sb));
}

int
record_label(struct record *r, const char *key, const char *value)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 3);
	rec_kstr(&pk, "t", "label");
	rec_kstr(&pk, "key", key);
	rec_kstr(&pk, "value", value);
	return (rec_flush(r, &sb));
}

int
record_plan(struct record *r, const struct host *h, const struct proto_plan *p)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 6);
	rec_kstr(&pk, "t", "plan");
	rec_kstr(&pk, "host", h->name);
	rec_kstr(&pk, "workdir", h->workdir);
	rec_kdouble(&pk, "max_load", p->max_load);
	rec_kuint(&pk, "load_wait_ms", p->load_wait_ms);
	rec_kstr(&pk, "pin", p->pin);
	return (rec_flush(r, &sb));
}

int
record_detach(struct record *r, const char *at)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;
	int		rv;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 2);
	rec_kstr(&pk, "t", "detach");
	rec_kstr(&pk, "at", at);
	rv = rec_flush(r, &sb);
	if (fsync(r->fd) == -1 && rv == 0) {
		snprintf(r->err, sizeof r->err, "fsync %s: %s", r->path,
		    strerror(errno));
		rv = -1;
	}
	close(r->fd);
	r->fd = -1;
	pthread_mutex_destroy(&r->mtx);
	return (rv);
}

int
record_file(struct record *r, const char *host, const char *variant,
    const char *role, const char *path, const char *sha, int fresh)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 7);
	rec_kuint(&pk, "fresh", fresh ? 1 : 0);
	rec_kstr(&pk, "t", "file");
	rec_kstr(&pk, "host", host);
	rec_kstr(&pk, "variant", variant);
	rec_kstr(&pk, "role", role);
	rec_kstr(&pk, "path", path);
	rec_kstr(&pk, "sha256", sha);
	return (rec_flush(r, &sb));
}

int
record_hostprog(struct record *r, const char *host, const char *variant,
    const char *role, const struct proto_prog *pg)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 9);
	rec_kuint(&pk, "fresh", 0);
	rec_kstr(&pk, "t", "file");
	rec_kstr(&pk, "host", host);
	rec_kstr(&pk, "variant", variant);
	rec_kstr(&pk, "role", role);
	rec_kstr(&pk, "path", pg->path);
	rec_kstr(&pk, "sha256", pg->sha);
	rec_kstr(&pk, "host_prog", pg->prog);
	rec_kstr(&pk, "version", pg->version);
	return (rec_flush(r, &sb));
}

int
record_sample(struct record *r, const char *host, const char *bench,
    const char *variant, const struct proto_sample *smp)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;
	size_t		i;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 22 + (smp->has_checksum ? 1 : 0));
	rec_kstr(&pk, "t", "sample");
	rec_kstr(&pk, "host", host);
	rec_kstr(&pk, "bench", bench);
	rec_kstr(&pk, "variant", variant);
	rec_kuint(&pk, "round", smp->round);
	rec_kuint(&pk, "attempt", smp->attempt);
	rec_kuint(&pk, "seq", smp->seq);
	rec_kuint(&pk, "warmup", smp->warmup);
	rec_kstr(&pk, "status", proto_status_name(smp->status));
	rec_kint(&pk, "exit", smp->exit_code);
	rec_kint(&pk, "signal", smp->signal);
	rec_kdouble(&pk, "load1", smp->load1);
	rec_kint(&pk, "start_ns", smp->start_ns);
	rec_kuint(&pk, "wall_ns", smp->wall_ns);
	rec_kuint(&pk, "user_ns", smp->user_ns);
	rec_kuint(&pk, "sys_ns", smp->sys_ns);
	rec_kuint(&pk, "maxrss_kb", smp->maxrss_kb);
	rec_kuint(&pk, "nvcsw", smp->nvcsw);
	rec_kuint(&pk, "nivcsw", smp->nivcsw);
	rec_kstr(&pk, "err", smp->err_tail);
	rec_kuint(&pk, "step", smp->step);
	rec_str(&pk, "metrics");
	msgpack_pack_map(&pk, smp->nmetrics);
	for (i = 0; i < smp->nmetrics; i++) {
		rec_str(&pk, smp->metrics[i].key);
		msgpack_pack_double(&pk, smp->metrics[i].value);
	}
	if (smp->has_checksum)
		rec_kstr(&pk, "checksum", smp->checksum);
	return (rec_flush(r, &sb));
}

int
record_state(struct record *r, const char *host, const struct proto_state *st)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 6);
	rec_kstr(&pk, "t", "state");
	rec_kstr(&pk, "host", host);
	rec_kstr(&pk, "state", st->state);
	rec_kstr(&pk, "detail", st->detail);
	rec_kdouble(&pk, "load1", st->load1);
	rec_kuint(&pk, "waited_ms", st->waited_ms);
	return (rec_flush(r, &sb));
}

int
record_hostend(struct record *r, const struct host *h)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 6);
	rec_kstr(&pk, "t", "hostend");
	rec_kstr(&pk, "host", h->name);
	rec_kuint(&pk, "pushed_bytes", h->pushed);
	rec_kuint(&pk, "pushed_files", h->npushed);
	rec_kstr(&pk, "status", h->status == HOST_OK ? "ok" : "failed");
	rec_kstr(&pk, "error", h->error);
	return (rec_flush(r, &sb));
}

int
record_close(struct record *r, const char *ended)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;
	int		rv;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 2);
	rec_kstr(&pk, "t", "end");
	rec_kstr(&pk, "ended", ended);
	rv = rec_flush(r, &sb);
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
