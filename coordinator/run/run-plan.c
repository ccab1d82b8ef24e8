/*
 * A host's plan message, built from the suite and the run's shared order
 * (coordinator/run/plan.c): its files, its commands and hooks, the floor,
 * its steps and its load gate.
 */
#include <stdio.h>
#include <string.h>

#include "coordinator/analysis/rng.h"
#include "coordinator/hosts/host.h"
#include "coordinator/input/defaults.h"
#include "coordinator/input/suite.h"
#include "coordinator/run/run-int.h"
#include "coordinator/store/dataset.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

/* A floor not subtracted: every round of the first FLOOR_DENSE, then one
 * round in FLOOR_EVERY (run_plan_floor_round). */
#define FLOOR_DENSE	3
#define FLOOR_EVERY	25

/* Replaces each {file:NAME} in arg with the file's path in the host's cache. */
static char *
run_plan_subst(struct run_host *rh, const struct suite_bench *b, size_t dbase,
    const char *arg)
{
	const char	*p, *end;
	char		*out, *o;
	size_t		 k, cap, need, nlen;

	cap = strlen(arg) + 1;
	out = xmalloc(cap);
	o = out;
	for (p = arg; *p != '\0'; ) {
		if (strncmp(p, "{file:", 6) == 0 &&
		    (end = strchr(p + 6, '}')) != NULL) {
			nlen = (size_t)(end - (p + 6));
			for (k = 0; k < b->nfiles; k++) {
				if (strlen(b->files[k].name) == nlen &&
				    strncmp(b->files[k].name, p + 6, nlen) == 0)
					break;
			}
			if (k < b->nfiles) {
				const struct run_file *rf =
				    &rh->files[rh->data[dbase + k]];

				need = (size_t)(o - out) + strlen(
				    rh->h->facts.workdir) + 8 + PROTO_SHA_HEX +
				    strlen(end + 1) + 1;
				if (need > cap) {
					size_t off = (size_t)(o - out);

					cap = need;
					out = xreallocarray(out, 1, cap);
					o = out + off;
				}
				o += sprintf(o, "%s/cache/%s",
				    rh->h->facts.workdir, rf->sha);
				p = end + 1;
				continue;
			}
		}
		*o++ = *p++;
	}
	*o = '\0';
	return (out);
}

/* Gives a pushed program's command the base name of its local path. */
static void
run_plan_name(struct proto_cmd *c, const char *path)
{
	const char	*base = strrchr(path, '/');

	base = base != NULL ? base + 1 : path;
	if (*base == '\0' || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0 || strlen(base) >= sizeof c->name)
		return;
	c->has_name = 1;
	snprintf(c->name, sizeof c->name, "%s", base);
}

/*
 * Gives a command the metric keys its program's stdout may give: the
 * bench's metrics that are not built-in; every other key=value line is
 * output.
 */
static void
run_plan_mkeys(struct proto_cmd *c, const struct suite_bench *sb)
{
	size_t	i, k;

	c->has_mkeys = 1;
	c->mkeys = xcalloc(sb->nmetrics + 1, sizeof *c->mkeys);
	for (i = 0; i < sb->nmetrics; i++) {
		for (k = 0; k < DS_NBUILTIN; k++) {
			if (strcmp(sb->metrics[i].name,
			    ds_builtin_names[k]) == 0)
				break;
		}
		if (k == DS_NBUILTIN)
			c->mkeys[c->nmkeys++] = xstrdup(sb->metrics[i].name);
	}
}

/*
 * Adds each bench's hooks to the host's plan as commands that are never
 * steps, and points the bench's commands at them.
 */
static void
run_plan_hooks(struct run *run, struct run_host *rh)
{
	const struct suite	*s = run->suite;
	struct proto_plan	*p = &rh->plan;
	const struct suite_hook	*hk;
	struct proto_cmd	*c;
	size_t			 b, k, v, i, dbase = 0, fi;
	int32_t			 idx[SUITE_NHOOKS];

	for (b = 0; b < s->nbenches; b++) {
		const struct suite_bench *sb = &s->benches[b];

		for (k = 0; k < SUITE_NHOOKS; k++) {
			idx[k] = -1;
			hk = &sb->hooks[k];
			if (hk->nargv == 0)
				continue;
			p->cmds = xreallocarray(p->cmds, p->ncmds + 1,
			    sizeof *p->cmds);
			c = &p->cmds[p->ncmds];
			memset(c, 0, sizeof *c);
			snprintf(c->bench, sizeof c->bench, "%s", sb->name);
			fi = rh->hook[b * SUITE_NHOOKS + k];
			if (hk->host != NULL) {
				c->has_host = 1;
				snprintf(c->host, sizeof c->host, "%s",
				    hk->host);
			} else {
				memcpy(c->exe, rh->files[fi].sha,
				    PROTO_SHA_HEX);
				run_plan_name(c, rh->files[fi].path);
			}
			c->nargs = hk->nargv - 1;
			c->args = xcalloc(c->nargs + 1, sizeof *c->args);
			for (i = 0; i < c->nargs; i++)
				c->args[i] = run_plan_subst(rh, sb, dbase,
				    hk->argv[i + 1]);
			c->env = xcalloc(1, sizeof *c->env);
			c->timeout_ms = sb->timeout_ms;
			idx[k] = (int32_t)p->ncmds++;
		}
		for (v = 0; v < s->nvariants; v++) {
			c = &p->cmds[b * s->nvariants + v];
			c->has_hooks = idx[0] != -1 || idx[1] != -1 ||
			    idx[2] != -1;
			for (k = 0; k < SUITE_NHOOKS; k++)
				c->hooks[k] = idx[k];
		}
		dbase += sb->nfiles;
	}
}

/*
 * Resuming, a host's load gate and CPU list are the ones its plan had at
 * the start, whatever the inventory says now: its agent's journal holds
 * that plan, and only that plan carries it on.
 */
static void
run_plan_from_record(struct run *run, struct run_host *rh,
    struct proto_plan *p)
{
	const struct ds_host	*dh;
	long			 hi;

	if (run->ds == NULL || (hi = dataset_host(run->ds, rh->h->name)) < 0)
		return;
	dh = &run->ds->hosts[hi];
	if (!dh->has_plan)
		return;
	if (dh->max_load != p->max_load || strcmp(dh->pin, p->pin) != 0)
		log_info("%s: resuming with the plan's load gate %g and pin "
		    "'%s' of the start (now %g and '%s')", rh->h->name,
		    dh->max_load, dh->pin, p->max_load, p->pin);
	p->max_load = dh->max_load;
	p->load_wait_ms = dh->load_wait_ms;
	snprintf(p->pin, sizeof p->pin, "%s", dh->pin);
}

/*
 * Fills the plan's commands, one per benchmark and variant (bench-major),
 * pointing at the host's files.
 */
static void
run_plan_cmds(struct run *run, struct run_host *rh)
{
	const struct suite	*s = run->suite;
	struct proto_plan	*p = &rh->plan;
	struct proto_cmd	*c;
	size_t			 b, v, i, dbase = 0;

	p->ncmds = s->nbenches * s->nvariants;
	p->cmds = xcalloc(p->ncmds, sizeof *p->cmds);
	for (b = 0; b < s->nbenches; b++) {
		const struct suite_bench *sb = &s->benches[b];

		for (v = 0; v < s->nvariants; v++) {
			const struct suite_variant *sv = &s->variants[v];

			c = &p->cmds[b * s->nvariants + v];
			snprintf(c->bench, sizeof c->bench, "%s", sb->name);
			snprintf(c->variant, sizeof c->variant, "%s", sv->name);
			if (sv->host != NULL) {
				c->has_host = 1;
				snprintf(c->host, sizeof c->host, "%s",
				    sv->host);
			} else {
				memcpy(c->exe, rh->files[rh->bin[v]].sha,
				    PROTO_SHA_HEX);
				run_plan_name(c, rh->files[rh->bin[v]].path);
			}
			run_plan_mkeys(c, sb);
			c->nargs = sv->nargs + sb->nargs;
			c->args = xcalloc(c->nargs + 1, sizeof *c->args);
			/* A variant's {param:NAME}: this point's value. */
			for (i = 0; i < sv->nargs; i++) {
				if ((c->args[i] = suite_point_subst(sb,
				    sv->args[i])) == NULL)
					fatalx("out of memory");
			}
			for (i = 0; i < sb->nargs; i++)
				c->args[sv->nargs + i] = run_plan_subst(rh, sb,
				    dbase, sb->args[i]);
			c->nenv = sv->nenv;
			c->env = xcalloc(c->nenv + 1, sizeof *c->env);
			for (i = 0; i < sv->nenv; i++)
				c->env[i] = xstrdup(sv->env[i]);
			c->timeout_ms = sb->timeout_ms;
			snprintf(c->checksum_key, sizeof c->checksum_key, "%s",
			    strcmp(sb->checksum, "stdout") == 0 ?
			    PROTO_CHECKSUM_STDOUT : sb->checksum);
		}
		dbase += sb->nfiles;
	}
}

/*
 * Adds the floor, orch-null from the agent's cache, as a file and a
 * command of the plan when the agent has one. Returns 1 with *cmd its
 * command, or 0.
 */
static int
run_plan_floor(struct run_host *rh, uint32_t *cmd)
{
	struct proto_plan	*p = &rh->plan;
	struct proto_cmd	*c;
	const char		*null_sha = NULL;
	size_t			 i;

	for (i = 0; i < rh->h->facts.nextra; i++) {
		if (strcmp(rh->h->facts.extra[i].key, "null_sha") == 0)
			null_sha = rh->h->facts.extra[i].value;
	}
	if (null_sha == NULL || strlen(null_sha) != PROTO_SHA_HEX - 1)
		return (0);
	p->files = xreallocarray(p->files, p->nfiles + 1, sizeof *p->files);
	memcpy(p->files[p->nfiles++], null_sha, PROTO_SHA_HEX);
	p->cmds = xreallocarray(p->cmds, p->ncmds + 1, sizeof *p->cmds);
	c = &p->cmds[p->ncmds];
	memset(c, 0, sizeof *c);
	snprintf(c->bench, sizeof c->bench, "%s", PROTO_FLOOR_BENCH);
	memcpy(c->exe, null_sha, PROTO_SHA_HEX);
	run_plan_name(c, "orch-null");
	c->args = xcalloc(1, sizeof *c->args);
	c->env = xcalloc(1, sizeof *c->env);
	c->timeout_ms = FLOOR_TIMEOUT;
	*cmd = (uint32_t)p->ncmds++;
	return (1);
}

/*
 * Returns 1 when round r takes a floor run. A floor subtracted from every
 * sample (subtract_floor = yes) is run every round: its median is part of
 * each result. One only reported (subtract_floor = no, as a one-line run
 * has it) is run in the first FLOOR_DENSE rounds and every FLOOR_EVERY-th
 * after: enough runs for its median and spread, where a floor every round
 * made a third of a short command's run (issue 30). Fixed by the round
 * alone, so a resume builds the same plan.
 */
static int
run_plan_floor_round(const struct suite *s, uint32_t r)
{
	if (s->subtract_floor)
		return (1);
	return (r <= FLOOR_DENSE || r % FLOOR_EVERY == 0);
}

/*
 * Fills the plan's steps from the shared order: with a floor, its run
 * first in each round that takes one (run_plan_floor_round).
 */
static void
run_plan_steps(struct run *run, struct run_host *rh, int has_floor,
    uint32_t floor_cmd)
{
	const struct suite	*s = run->suite;
	struct proto_plan	*p = &rh->plan;
	size_t			 i;

	p->steps = xcalloc(run->norder + s->rounds + 1, sizeof *p->steps);
	for (i = 0; i < run->norder; i++) {
		if (has_floor && run->order[i].round > 0 && (i == 0 ||
		    run->order[i - 1].round != run->order[i].round) &&
		    run_plan_floor_round(s, run->order[i].round)) {
			p->steps[p->nsteps].cmd = floor_cmd;
			p->steps[p->nsteps].round = run->order[i].round;
			p->nsteps++;
		}
		p->steps[p->nsteps].cmd = run->order[i].bench *
		    (uint32_t)s->nvariants + run->order[i].variant;
		p->steps[p->nsteps].round = run->order[i].round;
		p->steps[p->nsteps].warmup = (uint8_t)run->order[i].warmup;
		p->nsteps++;
	}
}

/*
 * Sets the plan's environment padding: the suite's env_pad and a key
 * drawn from the run's seed and the host's name, so that a run (and its
 * resume) pads alike and hosts independently.
 */
static void
run_plan_env_pad(const struct run *run, const struct run_host *rh,
    struct proto_plan *p)
{
	struct rng	r;
	char		tag[PROTO_NAME_MAX + 16];

	if (run->suite->env_pad == 0)
		return;
	snprintf(tag, sizeof tag, "env_pad/%s", rh->h->name);
	rng_seed_str(&r, run->suite->seed, tag);
	p->has_env_pad = p->has_env_pad_seed = 1;
	p->env_pad = run->suite->env_pad;
	p->env_pad_seed = rng_next(&r);
}

/*
 * Builds the host's plan message from the suite and the shared order:
 * its parts (files, commands, hooks, the floor, the steps) index each
 * other and are filled in that order.
 */
void
run_plan_build(struct run *run, struct run_host *rh)
{
	const struct suite	*s = run->suite;
	struct proto_plan	*p = &rh->plan;
	uint32_t		 floor_cmd = 0;
	size_t			 i;
	int			 has_floor;

	memset(p, 0, sizeof *p);
	p->nfiles = rh->nfiles;
	p->files = xcalloc(rh->nfiles + 1, sizeof *p->files);
	for (i = 0; i < rh->nfiles; i++)
		memcpy(p->files[i], rh->files[i].sha, PROTO_SHA_HEX);
	run_plan_cmds(run, rh);
	run_plan_hooks(run, rh);
	/* The floor: orch-null from the agent's cache, first in a round. */
	has_floor = run_plan_floor(rh, &floor_cmd);
	run_plan_steps(run, rh, has_floor, floor_cmd);
	snprintf(p->counters, sizeof p->counters, "%s", s->counters);
	p->linger_ms = s->linger_s * 1000;
	p->resume_seq = -1;
	run_plan_env_pad(run, rh, p);
	p->has_settle_ms = s->settle_ms > 0;
	p->settle_ms = s->settle_ms;
	rh->seen = xcalloc(p->nsteps + 1, sizeof *rh->seen);
	rh->told = xcalloc(p->ncmds + 1, sizeof *rh->told);
	p->max_load = rh->h->max_load >= 0 ? rh->h->max_load :
	    run->opt_max_load >= 0 ? run->opt_max_load : s->max_load;
	p->load_wait_ms = s->load_wait_s * 1000;
	p->retries = s->retries;
	snprintf(p->pin, sizeof p->pin, "%s", rh->h->pin[0] ? rh->h->pin :
	    s->pin);
	run_plan_from_record(run, rh, p);
	if (s->auto_rounds)
		run_looks_open(run, rh);
	rh->total = p->nsteps;
	for (i = 0; i < p->nsteps; i++)
		rh->measured_total += !p->steps[i].warmup &&
		    (!has_floor || p->steps[i].cmd != floor_cmd);
}

/* Frees a plan message's parts and clears it. */
void
run_plan_free(struct proto_plan *p)
{
	struct proto_msg	m;

	memset(&m, 0, sizeof m);
	m.type = PROTO_PLAN;
	m.u.plan = *p;
	proto_msg_free(&m);
	memset(p, 0, sizeof *p);
}
