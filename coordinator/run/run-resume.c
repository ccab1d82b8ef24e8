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

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/run/plan.h"
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
	if (run_resume_suite(ds, &run->suite, cause) != 0)
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
	struct stat	st;
	char		was[PROTO_SHA_HEX], now[PROTO_SHA_HEX];

	*out = NULL;
	/*
	 * The path is the record's, and the record may come from anyone:
	 * a FIFO or a device there would block or never end. What runs is
	 * only ever the suite the run started with, checked byte for byte.
	 */
	if (stat(ds->suite_path, &st) == -1) {
		xasprintf(cause, "%s: %s (the suite run %s started with)",
		    ds->suite_path, strerror(errno), ds->run_id);
		return (-1);
	}
	if (!S_ISREG(st.st_mode)) {
		xasprintf(cause, "%s: not a regular file (the suite run %s "
		    "started with)", ds->suite_path, ds->run_id);
		return (-1);
	}
	if (suite_load(ds->suite_path, out, cause) != 0)
		return (-1);
	if (strcmp((*out)->text, ds->suite_text) != 0) {
		if (hash_buf(ds->suite_text, strlen(ds->suite_text),
		    was) != 0 || hash_buf((*out)->text,
		    strlen((*out)->text), now) != 0)
			fatalx("SHA-256 failed");
		xasprintf(cause, "%s changed since run %s started (SHA-256 "
		    "now %s, at the start %s): restore it to resume",
		    ds->suite_path, ds->run_id, now, was);
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
		if (s->step >= rh->plan.nsteps || s->attempt >= 32)
			continue;
		if (rh->seen[s->step] == 0) {
			rh->done++;
			if (i < ds->nsamples && !s->warmup)
				rh->measured++;
		}
		rh->seen[s->step] |= 1U << s->attempt;
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
	if (suite != NULL && !run_resume_same_path(suite, ds->suite_path)) {
		snprintf(was, sizeof was, "with the suite %s", ds->suite_path);
		run_resume_contra(cause, suite, "the suite", ds, dir, was);
		goto out;
	}
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

/*
 * Resuming, a host's agent starts in the workdir the run started with,
 * whatever the inventory (or $ORCH_WORKDIR) says now: the journal is
 * there, and so is the agent carrying the run on.
 */
void
run_resume_workdir(const struct run *run, struct host *h)
{
	const struct ds_host	*dh;
	long			 hi;

	if (run->ds == NULL || (hi = dataset_host(run->ds, h->name)) < 0)
		return;
	dh = &run->ds->hosts[hi];
	if (!dh->has_plan || dh->workdir == NULL ||
	    strcmp(dh->workdir, h->workdir) == 0)
		return;
	if (strlen(dh->workdir) >= sizeof h->workdir)
		return;	/* it came from a host of this size: cannot be */
	log_info("%s: resuming in the workdir the run started with, %s "
	    "(now %s)", h->name, dh->workdir[0] != '\0' ? dh->workdir :
	    "the default", h->workdir[0] != '\0' ? h->workdir : "the default");
	snprintf(h->workdir, sizeof h->workdir, "%s", dh->workdir);
}
