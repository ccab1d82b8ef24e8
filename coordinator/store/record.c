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
#include "coordinator/store/entry.h"
#include "coordinator/store/record.h"
#include "proto/log.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

/* ---- writing ---------------------------------------------------------- */

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
rec_last(struct record *r, msgpack_sbuffer *sb)
{
	int	rv;

	rv = rec_flush(r, sb);
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

/*
 * Packs entry e of type t (entry.h) and writes it; last: as the record's
 * last (rec_last). Returns 0 or -1.
 */
static int
rec_put(struct record *r, const struct entry_type *t, const void *e,
    int last)
{
	msgpack_sbuffer	sb;
	msgpack_packer	pk;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	entry_pack(&pk, t, e);
	return (last ? rec_last(r, &sb) : rec_flush(r, &sb));
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
	struct entry_at	e;

	memset(&e, 0, sizeof e);
	e.at = entry_s(at);
	return (rec_put(r, &entry_resume_type, &e, 0));
}

int
record_run(struct record *r, const char *run_id, const struct suite *s,
    uint64_t seed, const char *cmdline, const char *started,
    const struct host *hosts, size_t nhosts)
{
	struct entry_run	e;

	memset(&e, 0, sizeof e);
	/* rounds = auto: "rounds" is max_rounds. */
	e.has_auto = e.has_min_rounds = e.has_budget_s = s->auto_rounds ?
	    ENTRY_HAS : ENTRY_ABSENT;
	e.is_auto = 1;
	e.min_rounds = s->min_rounds;
	e.budget_s = s->budget_s;
	e.s = s;
	e.hosts = hosts;
	e.nhosts = nhosts;
	e.subtract_floor = (uint64_t)s->subtract_floor;
	e.counters = entry_s(s->counters);
	e.retries = s->retries;
	e.max_load = s->max_load;
	e.run_id = entry_s(run_id);
	e.orch_version = entry_s(ORCH_VERSION);
	e.suite = entry_s(s->name);
	e.suite_path = entry_s(s->path);
	e.suite_text = entry_s(s->text);
	e.cmdline = entry_s(cmdline);
	e.started = entry_s(started);
	e.seed = seed;
	e.min_effect = s->min_effect;
	e.rounds = s->rounds;
	e.warmup = s->warmup;
	e.reference = s->ref;
	return (rec_put(r, &entry_run_type, &e, 0));
}

/*
 * Keeps of the agent's machine hash its first 16 hex digits: enough to
 * tell machines apart, and no more of it published than that.
 */
static void
record_host_machine(struct entry_host *e, const struct proto_facts *f,
    char buf[17])
{
	snprintf(buf, 17, "%.16s", f->machine);
	e->machine = entry_s(buf);
	e->has_machine = buf[0] != '\0' ? ENTRY_HAS : 0;
}

int
record_host(struct record *r, const struct host *h)
{
	struct entry_host		 e;
	const struct proto_facts	*f = &h->facts;
	char				 machine[17];

	memset(&e, 0, sizeof e);
	e.host = entry_s(h->name);
	e.agent_version = entry_s(h->agent_version);
	e.os = entry_s(f->os);
	e.arch = entry_s(f->arch);
	e.cpu_model = entry_s(f->cpu_model);
	e.kernel = entry_s(f->kernel);
	e.hostname = entry_s(f->hostname);
	e.workdir = entry_s(f->workdir);
	e.cores.u = f->cores;
	e.mem_kb.u = f->mem_kb;
	e.load = f->load;
	e.kind = entry_s(h->ops != NULL ? h->ops->kind : "");
	e.extra = f->extra;
	e.nextra = f->nextra;
	record_host_machine(&e, f, machine);
	return (rec_put(r, &entry_host_type, &e, 0));
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
record_opts(struct record *r, double max_load, int64_t env_pad)
{
	struct entry_opts	e;

	memset(&e, 0, sizeof e);
	e.max_load = max_load >= 0 ? max_load : -1;
	if (env_pad >= 0) {
		e.env_pad = (uint64_t)env_pad;
		e.has_env_pad = ENTRY_HAS;
	}
	return (rec_put(r, &entry_opts_type, &e, 0));
}

int
record_label(struct record *r, const char *key, const char *value)
{
	struct entry_label	e;

	memset(&e, 0, sizeof e);
	e.key = entry_s(key);
	e.value = entry_s(value);
	return (rec_put(r, &entry_label_type, &e, 0));
}

int
record_plan(struct record *r, const struct host *h, const struct proto_plan *p)
{
	struct entry_plan	e;

	memset(&e, 0, sizeof e);
	e.host = entry_s(h->name);
	e.workdir = entry_s(h->workdir);
	e.has_workdir = ENTRY_HAS;
	e.max_load = p->max_load;
	e.load_wait_ms.u = p->load_wait_ms;
	e.pin = entry_s(p->pin);
	return (rec_put(r, &entry_plan_type, &e, 0));
}

int
record_detach(struct record *r, const char *at)
{
	struct entry_at	e;

	memset(&e, 0, sizeof e);
	e.at = entry_s(at);
	return (rec_put(r, &entry_detach_type, &e, 1));
}

int
record_file(struct record *r, const char *host, const char *variant,
    const char *role, const char *path, const char *sha, int fresh)
{
	struct entry_file	e;

	memset(&e, 0, sizeof e);
	e.fresh = fresh ? 1 : 0;
	e.host = entry_s(host);
	e.variant = entry_s(variant);
	e.role = entry_s(role);
	e.path = entry_s(path);
	e.sha256 = entry_s(sha);
	return (rec_put(r, &entry_file_type, &e, 0));
}

int
record_hostprog(struct record *r, const char *host, const char *variant,
    const char *role, const struct proto_prog *pg)
{
	struct entry_file	e;

	memset(&e, 0, sizeof e);
	e.host = entry_s(host);
	e.variant = entry_s(variant);
	e.role = entry_s(role);
	e.path = entry_s(pg->path);
	e.sha256 = entry_s(pg->sha);
	e.host_prog = entry_s(pg->prog);
	e.version = entry_s(pg->version);
	e.has_host_prog = e.has_version = ENTRY_HAS;
	return (rec_put(r, &entry_file_type, &e, 0));
}

int
record_sample(struct record *r, const char *host, const char *bench,
    const char *variant, const struct proto_sample *smp)
{
	struct entry_sample	e;

	memset(&e, 0, sizeof e);
	e.host = entry_s(host);
	e.bench = entry_s(bench);
	e.variant = entry_s(variant);
	e.round = smp->round;
	e.attempt = smp->attempt;
	e.seq = smp->seq;
	e.warmup = smp->warmup;
	e.status = entry_s(proto_status_name(smp->status));
	e.exit_code = smp->exit_code;
	e.signal = smp->signal;
	e.load1 = smp->load1;
	e.start_ns = smp->start_ns;
	e.builtin[0] = smp->wall_ns;
	e.builtin[1] = smp->user_ns;
	e.builtin[2] = smp->sys_ns;
	e.builtin[3] = smp->maxrss_kb;
	e.builtin[4] = smp->nvcsw;
	e.builtin[5] = smp->nivcsw;
	e.err = entry_s(smp->err_tail);
	e.step = smp->step;
	e.metrics = smp->metrics;
	e.nmetrics = smp->nmetrics;
	if (smp->has_checksum) {
		e.checksum = entry_s(smp->checksum);
		e.has_checksum = ENTRY_HAS;
	}
	if (smp->has_env_pad) {
		e.env_pad = smp->env_pad;
		e.has_env_pad = ENTRY_HAS;
	}
	return (rec_put(r, &entry_sample_type, &e, 0));
}

int
record_state(struct record *r, const char *host, const struct proto_state *st)
{
	struct entry_state	e;

	memset(&e, 0, sizeof e);
	e.host = entry_s(host);
	e.state = entry_s(st->state);
	e.detail = entry_s(st->detail);
	e.load1 = st->load1;
	e.waited_ms.u = st->waited_ms;
	return (rec_put(r, &entry_state_type, &e, 0));
}

int
record_hostend(struct record *r, const struct host *h)
{
	struct entry_hostend	e;

	memset(&e, 0, sizeof e);
	e.host = entry_s(h->name);
	e.pushed_bytes = h->pushed;
	e.pushed_files = h->npushed;
	e.status = entry_s(h->status == HOST_OK ? "ok" : "failed");
	e.error = entry_s(h->error);
	return (rec_put(r, &entry_hostend_type, &e, 0));
}

int
record_alloc(struct record *r, const char *host, const struct ds_slurm *s)
{
	struct entry_alloc	e;

	memset(&e, 0, sizeof e);
	e.host = entry_s(host);
	e.cluster = entry_s(s->cluster);
	e.login = entry_s(s->login);
	e.job_id = entry_s(s->job_id);
	e.component = s->component;
	e.node = entry_s(s->node);
	e.node_addr = entry_s(s->node_addr);
	e.partition = entry_s(s->partition);
	e.constraint = entry_s(s->constraint);
	e.workdir = entry_s(s->workdir);
	e.timeout_s = s->timeout_s;
	e.end_s = s->end_s;
	/* The node's facts as Slurm knows them: written when known. */
	e.node_cpus = s->node_cpus;
	e.has_node_cpus = s->node_cpus > 0 ? ENTRY_HAS : 0;
	e.node_mem_mb = s->node_mem_mb;
	e.has_node_mem_mb = s->node_mem_mb > 0 ? ENTRY_HAS : 0;
	e.node_arch = entry_s(s->node_arch);
	e.has_node_arch = s->node_arch[0] != '\0' ? ENTRY_HAS : 0;
	e.node_features = entry_s(s->node_features);
	e.has_node_features = s->node_features[0] != '\0' ? ENTRY_HAS : 0;
	return (rec_put(r, &entry_alloc_type, &e, 0));
}

int
record_release(struct record *r, const char *cluster, const char *job_id,
    const char *at)
{
	struct entry_release	e;

	memset(&e, 0, sizeof e);
	e.cluster = entry_s(cluster);
	e.job_id = entry_s(job_id);
	e.at = entry_s(at);
	return (rec_put(r, &entry_release_type, &e, 0));
}

int
record_close(struct record *r, const char *ended)
{
	struct entry_at	e;

	memset(&e, 0, sizeof e);
	e.at = entry_s(ended);
	return (rec_put(r, &entry_end_type, &e, 1));
}
