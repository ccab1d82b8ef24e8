/*
 * `orch run --resume=DIR`: the flags checked against DIR's record, the
 * run taken up from it (its id, seed, rounds and the very suite it
 * started with), and each host's plan settings, workdir and samples
 * already stored.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/defaults.h"
#include "coordinator/input/suite.h"
#include "coordinator/run/plan.h"
#include "coordinator/run/run-bind.h"
#include "coordinator/run/run-int.h"
#include "coordinator/run/run.h"
#include "coordinator/store/dataset.h"
#include "coordinator/store/record.h"
#include "proto/hash.h"
#include "proto/ident.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

/*
 * A resumed run: everything from DIR/samples.msgpack — the run id, the
 * seed and rounds, and the suite, which must not have changed since.
 */
int
run_resume_prepare(struct run *run, const char *dir, struct dataset **dsp,
    char **cause)
{
	struct dataset	*ds;

	if (record_load(dir, dsp, cause) != 0)
		return (-1);
	ds = *dsp;
	/* The run id names the agents' run directories and key lines. */
	if (!ident_str_ok(ds->run_id, sizeof run->run_id)) {
		xasprintf(cause, "%s: run id '%.*s' is not a valid identifier "
		    "([A-Za-z0-9_.-], not starting with '-' or '.')", dir,
		    (int)strcspn(ds->run_id, "\n"), ds->run_id);
		return (-1);
	}
	if (ds->ended[0] != '\0') {
		xasprintf(cause, "%s: the run is complete (ended %s); orch "
		    "report %s renders it", dir, ds->ended, dir);
		return (-1);
	}
	if (run_resume_suite_at(ds, run->opts->resume_suite != NULL ?
	    run->opts->resume_suite : ds->suite_path, &run->suite,
	    cause) != 0)
		return (-1);
	run->suite->rounds = ds->rounds;
	run->suite->warmup = ds->warmup;
	run->suite->seed = ds->seed;
	if (run->opts->has_env_pad)
		run->suite->env_pad = run->opts->env_pad;
	run->suite->auto_rounds = ds->auto_rounds;
	run->suite->max_rounds = ds->rounds;
	run->suite->min_rounds = ds->min_rounds;
	run->suite->budget_s = ds->budget_s;
	if (plan_order(run->suite, run->suite->seed, &run->order,
	    &run->norder) != 0)
		fatalx("out of memory planning");
	snprintf(run->run_id, sizeof run->run_id, "%s", ds->run_id);
	snprintf(run->dir, sizeof run->dir, "%s", dir);
	return (run_new_dirs(run->dir, cause));
}

int
run_resume_suite(const struct dataset *ds, struct suite **out, char **cause)
{
	return (run_resume_suite_at(ds, ds->suite_path, out, cause));
}

int
run_resume_suite_at(const struct dataset *ds, const char *path,
    struct suite **out, char **cause)
{
	struct stat	st;
	char		was[PROTO_SHA_HEX], now[PROTO_SHA_HEX];

	*out = NULL;
	/*
	 * The path is the user's, or the record's one that run_resume_flags
	 * let through: a FIFO or a device there would block or never end.
	 * What runs is only ever the suite the run started with, checked
	 * byte for byte against the record's copy.
	 */
	if (stat(path, &st) == -1) {
		xasprintf(cause, "%s: %s (the suite run %s started with)",
		    path, strerror(errno), ds->run_id);
		return (-1);
	}
	if (!S_ISREG(st.st_mode)) {
		xasprintf(cause, "%s: not a regular file (the suite run %s "
		    "started with)", path, ds->run_id);
		return (-1);
	}
	if (suite_load(path, out, cause) != 0)
		return (-1);
	if (strcmp((*out)->text, ds->suite_text) != 0) {
		if (hash_buf(ds->suite_text, strlen(ds->suite_text),
		    was) != 0 || hash_buf((*out)->text,
		    strlen((*out)->text), now) != 0)
			fatalx("SHA-256 failed");
		xasprintf(cause, "%s changed since run %s started (SHA-256 "
		    "now %s, at the start %s): restore it to resume",
		    path, ds->run_id, now, was);
		suite_free(*out);
		*out = NULL;
		return (-1);
	}
	return (0);
}

/* Marks what a resumed host already stored: it is not taken twice. */
void
run_resume_host(struct run_host *rh, const struct dataset *ds)
{
	const struct ds_sample	*s;
	long			 h = dataset_host(ds, rh->h->name);
	size_t			 i;

	if (h < 0)
		return;
	for (i = 0; i < ds->nsamples + ds->nfloors; i++) {
		s = i < ds->nsamples ? &ds->samples[i] :
		    &ds->floors[i - ds->nsamples];
		if (s->host != (size_t)h)
			continue;
		if ((int64_t)s->seq > rh->max_seq)
			rh->max_seq = s->seq;
		if (s->step >= rh->plan.nsteps || s->attempt < 1 ||
		    s->attempt >= 32)
			continue;
		if (rh->seen[s->step] == 0) {
			rh->done++;
			if (i < ds->nsamples && !s->warmup)
				rh->measured++;
		}
		rh->seen[s->step] |= 1U << s->attempt;
		if (s->status != PROTO_ST_SIGNAL)
			rh->seen[s->step] |= RUN_STEP_ENDED;
	}
}

/* Returns the hosts of an unfinished run in DIR, comma separated (free). */
char *
run_resume_hosts(const char *dir, char **cause)
{
	struct dataset	*ds;
	char		*list;

	if (record_load(dir, &ds, cause) != 0)
		return (NULL);
	list = dataset_host_list(ds, 1);
	dataset_free(ds);
	if (list[0] == '\0') {
		xasprintf(cause, "%s: every host of this run has finished; "
		    "orch report %s renders it", dir, dir);
		free(list);
		return (NULL);
	}
	return (list);
}

/* Returns 1 when paths a and b name the same file (or are equal). */
static int
run_resume_same_path(const char *a, const char *b)
{
	char	ra[PATH_MAX], rb[PATH_MAX];

	if (strcmp(a, b) == 0)
		return (1);
	if (realpath(a, ra) == NULL || realpath(b, rb) == NULL)
		return (0);
	return (strcmp(ra, rb) == 0);
}

/* Returns 1 when the hosts given are the hosts of the record, as a set. */
static int
run_resume_same_hosts(const struct dataset *ds, const struct host *hosts,
    size_t nhosts)
{
	size_t	i, j;

	if (nhosts != ds->nhosts)
		return (0);
	for (i = 0; i < nhosts; i++) {
		if (dataset_host(ds, hosts[i].name) < 0)
			return (0);
		for (j = 0; j < i; j++) {
			if (strcmp(hosts[i].name, hosts[j].name) == 0)
				return (0);
		}
	}
	return (1);
}

/* Writes how a run was started with respect to --max-load. */
static void
run_resume_show_max_load(double v, char *buf, size_t len)
{
	if (v < 0)
		snprintf(buf, len, "without --max-load (the suite's and the "
		    "inventory's load gates)");
	else
		snprintf(buf, len, "with --max-load=%g", v);
}

/* Says that flag contradicts the record, which holds was. */
static void
run_resume_contra(char **cause, const char *flag, const char *drop,
    const struct dataset *ds, const char *dir, const char *was)
{
	xasprintf(cause, "%s contradicts the record of run %s in %s: it was "
	    "started %s; --resume takes every setting from the record (drop "
	    "%s)", flag, ds->run_id, dir, was, drop);
}

/* Returns 1 when others may replace the file at path (its directory). */
static int
run_resume_open_dir(const char *path)
{
	struct stat	 st;
	char		 d[PATH_MAX], *sl;

	snprintf(d, sizeof d, "%s", path);
	if ((sl = strrchr(d, '/')) == NULL)
		return (1);
	sl[sl == d] = '\0';
	if (stat(d, &st) == -1)
		return (1);
	return ((st.st_mode & 022) != 0 && (st.st_mode & S_ISVTX) == 0);
}

int
run_resume_suite_trust(const char *dir, const char *path, char **cause)
{
	struct stat	 st;
	char		 rd[PATH_MAX], rp[PATH_MAX];
	const char	*what = NULL;
	size_t		 n;

	if (path[0] != '/')
		what = "is a relative path (relative to whoever wrote it)";
	else if (realpath(path, rp) == NULL || stat(rp, &st) == -1) {
		xasprintf(cause, "%s: the record's suite %s: %s", dir, path,
		    strerror(errno));
		return (-1);
	} else if (realpath(dir, rd) != NULL && (n = strlen(rd)) > 0 &&
	    strncmp(rp, rd, n) == 0 && (rp[n] == '/' || rd[n - 1] == '/'))
		what = "is inside the run directory (it came with it)";
	else if (!S_ISREG(st.st_mode))
		what = "is not a regular file";
	else if (st.st_uid != getuid())
		what = "is not yours";
	else if ((st.st_mode & 022) != 0)
		what = "may be written by others (group or other writable)";
	else if (run_resume_open_dir(rp))
		what = "is in a directory others may write to (not sticky)";
	if (what == NULL)
		return (0);
	xasprintf(cause, "%s: the record names the suite %s, which %s: a run "
	    "directory is evidence, never instructions; name the suite to run "
	    "(orch run --resume=%s --resume-foreign SUITE.ini), and it must "
	    "hold the record's text byte for byte", dir, path, what, dir);
	return (-1);
}

/*
 * Checks that DIR was started by this user (run.mac, run-bind.c). Returns
 * 1 when it was, 0 when it was not but --resume-foreign says go on, or -1
 * with *cause set.
 */
static int
run_resume_mine(const struct run_opts *opts, const struct dataset *ds,
    char **cause)
{
	struct run_bind	 b;
	const char	**names;
	char		*why = NULL;
	size_t		 i;
	int		 mine;

	names = xcalloc(ds->nhosts + 1, sizeof *names);
	for (i = 0; i < ds->nhosts; i++)
		names[i] = ds->hosts[i].name;
	b.run_id = ds->run_id;
	b.suite_path = ds->suite_path;
	b.suite_text = ds->suite_text;
	b.hosts = names;
	b.nhosts = ds->nhosts;
	mine = run_bind_check(opts->resume, &b, &why);
	free(names);
	if (mine || opts->resume_foreign) {
		if (!mine)
			log_info("%s: resuming a run not bound to you (%s), "
			    "as --resume-foreign says", opts->resume, why);
		free(why);
		return (mine);
	}
	xasprintf(cause, "%s: run %s was not started by you here (%s); a run "
	    "directory someone else made is evidence, never instructions: "
	    "read what it would run, then confirm with --resume-foreign and "
	    "name the suite (orch run --resume=%s --resume-foreign SUITE.ini)",
	    opts->resume, ds->run_id, why, opts->resume);
	free(why);
	return (-1);
}

/*
 * Picks the suite a resume runs into opts->resume_suite: the one the
 * user names, else (NULL: the record's path) the record's own when the
 * run is the user's, else the record's path only when
 * run_resume_suite_trust lets it through. Returns 0, or -1 with *cause.
 */
static int
run_resume_pick_suite(struct run_opts *opts, const struct dataset *ds,
    const char *suite, char **cause)
{
	const char	*dir = opts->resume;
	char		 was[PATH_MAX + 32];
	int		 mine;

	if ((mine = run_resume_mine(opts, ds, cause)) < 0)
		return (-1);
	if (suite != NULL && mine &&
	    !run_resume_same_path(suite, ds->suite_path)) {
		snprintf(was, sizeof was, "with the suite %s", ds->suite_path);
		run_resume_contra(cause, suite, "the suite", ds, dir, was);
		return (-1);
	}
	if (suite != NULL)
		opts->resume_suite = xstrdup(suite);
	else if (!mine && run_resume_suite_trust(dir, ds->suite_path,
	    cause) != 0)
		return (-1);
	return (0);
}

int
run_resume_flags(struct run_opts *opts, const char *suite,
    const struct host *hosts, size_t nhosts, char **cause)
{
	struct dataset	*ds;
	const char	*dir = opts->resume;
	char		 was[160], flag[64], *list;
	int		 r = -1;

	if (record_load(dir, &ds, cause) != 0)
		return (-1);
	if (record_busy(dir)) {
		xasprintf(cause, "%s: another orch is running this run now "
		    "(orch status %s tells its progress)", dir, dir);
		goto out;
	}
	if (run_resume_pick_suite(opts, ds, suite, cause) != 0)
		goto out;
	if (opts->out != NULL && !run_resume_same_path(opts->out, dir)) {
		xasprintf(cause, "--out=%s contradicts --resume=%s: a resumed "
		    "run writes where it started (drop --out)", opts->out, dir);
		goto out;
	}
	if (opts->rounds > 0 && (opts->rounds != ds->rounds ||
	    ds->auto_rounds)) {
		snprintf(flag, sizeof flag, "--rounds=%u", opts->rounds);
		snprintf(was, sizeof was, ds->auto_rounds ? "with rounds = "
		    "auto" : "with %u rounds", ds->rounds);
		run_resume_contra(cause, flag, "--rounds", ds, dir, was);
		goto out;
	}
	if (opts->auto_rounds && !ds->auto_rounds) {
		snprintf(was, sizeof was, "with %u rounds", ds->rounds);
		run_resume_contra(cause, "--rounds=auto", "--rounds", ds, dir,
		    was);
		goto out;
	}
	if (opts->budget_s > 0 && opts->budget_s != ds->budget_s) {
		snprintf(flag, sizeof flag, "--budget=%us", opts->budget_s);
		snprintf(was, sizeof was, ds->budget_s > 0 ? "with a budget "
		    "of %us" : "without a budget", ds->budget_s);
		run_resume_contra(cause, flag, "--budget", ds, dir, was);
		goto out;
	}
	if (opts->has_seed && opts->seed != ds->seed) {
		snprintf(flag, sizeof flag, "--seed=%llu",
		    (unsigned long long)opts->seed);
		snprintf(was, sizeof was, "with seed %llu",
		    (unsigned long long)ds->seed);
		run_resume_contra(cause, flag, "--seed", ds, dir, was);
		goto out;
	}
	if (opts->max_load >= 0 && opts->max_load != ds->opt_max_load) {
		snprintf(flag, sizeof flag, "--max-load=%g", opts->max_load);
		run_resume_show_max_load(ds->opt_max_load, was, sizeof was);
		run_resume_contra(cause, flag, "--max-load", ds, dir, was);
		goto out;
	}
	if (opts->has_env_pad && (int64_t)opts->env_pad != ds->opt_env_pad) {
		snprintf(flag, sizeof flag, "--env-pad=%u", opts->env_pad);
		if (ds->opt_env_pad >= 0)
			snprintf(was, sizeof was, "with --env-pad=%lld",
			    (long long)ds->opt_env_pad);
		else
			snprintf(was, sizeof was, "with the suite's env_pad");
		run_resume_contra(cause, flag, "--env-pad", ds, dir, was);
		goto out;
	}
	if (hosts != NULL && !run_resume_same_hosts(ds, hosts, nhosts)) {
		list = dataset_host_list(ds, 0);
		snprintf(was, sizeof was, "on hosts %s", list);
		free(list);
		run_resume_contra(cause, "--hosts", "--hosts", ds, dir, was);
		goto out;
	}
	/* What the record says, the resume does. */
	opts->max_load = ds->opt_max_load;
	opts->has_env_pad = ds->opt_env_pad >= 0;
	opts->env_pad = opts->has_env_pad ? (uint32_t)ds->opt_env_pad : 0;
	r = 0;
out:
	dataset_free(ds);
	return (r);
}

/* Writes the workdir h starts its agent in as a plan record holds it. */
static void
run_resume_wd(const struct host *h, char *buf, size_t len)
{
	const char	*home = getenv("HOME");

	if (h->workdir[0] != '\0' || strcmp(h->name, "local") != 0)
		snprintf(buf, len, "%s", h->workdir);
	else	/* as host-local.c's default */
		snprintf(buf, len, "%s/%s", home != NULL ? home : "/tmp",
		    DEFAULT_WORKDIR_HOME);
}

int
run_resume_workdirs(const char *dir, const struct host *hosts, size_t n,
    char **cause)
{
	const struct ds_host	*dh;
	struct dataset		*ds;
	char			 wd[sizeof hosts->workdir];
	size_t			 i;
	long			 hi;
	int			 r = 0;

	if (record_load(dir, &ds, cause) != 0)
		return (-1);
	for (i = 0; i < n && r == 0; i++) {
		if ((hi = dataset_host(ds, hosts[i].name)) < 0)
			continue;
		dh = &ds->hosts[hi];
		/* A Slurm host's default workdir is its node's, recorded. */
		if (dh->slurm != NULL && hosts[i].workdir[0] == '\0')
			continue;
		run_resume_wd(&hosts[i], wd, sizeof wd);
		if (!dh->has_plan || dh->workdir == NULL ||
		    strcmp(dh->workdir, wd) == 0)
			continue;
		xasprintf(cause, "%s: host %s: the record says the run started "
		    "in the workdir %s, the inventory says %s: a resume runs "
		    "only in the workdir your inventory names (set host %s's "
		    "workdir to %s if that directory is yours)", dir,
		    hosts[i].name, dh->workdir[0] != '\0' ? dh->workdir :
		    "(the default)", wd[0] != '\0' ? wd : "(the default, "
		    DEFAULT_WORKDIR ")", hosts[i].name, dh->workdir);
		r = -1;
	}
	dataset_free(ds);
	return (r);
}
