/*
 * What an agent sends during a run, checked where it enters against its
 * host's plan and bounded (docs/security.md, "A hostile agent"): a sample
 * outside the plan, a flood of STATUS, waiting-grant or PROGS fails that
 * host alone, naming it and the field; nothing of it is stored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/seq.h"
#include "coordinator/hosts/host.h"
#include "coordinator/run/run-int.h"
#include "coordinator/store/dataset.h"
#include "proto/log.h"

#define RUN_PEER_ATTEMPTS	31	/* attempts of a step, at most (the
					   seen[] bits) */
#define RUN_PEER_STATUS_MAX	20000	/* STATUS recorded per host and run:
					   a waiting-load every 30 s for
					   86400 s, four agents */
#define RUN_PEER_REPEAT_MAX	64	/* waiting-grants without a new
					   sample in between */
#define RUN_PEER_PROGS_MAX	1	/* PROGS per agent's plan */
/* Samples already stored, re-sent in one agent's session: its journal. */
#define RUN_PEER_DUPS_MAX(rh)	((rh)->plan.nsteps * RUN_PEER_ATTEMPTS)

/* The steps an agent may have run: its grants so far, or the plan. */
static uint32_t
run_peer_allowed(const struct run_host *rh)
{
	const struct run	*run = rh->run;
	const struct suite	*s = run->suite;
	uint32_t		 r;

	if (!s->auto_rounds || rh->round_end == NULL)
		return ((uint32_t)rh->plan.nsteps);
	/*
	 * Resumed, before our first look: the agent's journal may hold a
	 * GRANT one block beyond what the record reached.
	 */
	if (run->ds != NULL && !rh->peer.looked) {
		r = seq_next(rh->granted, s->min_rounds, s->rounds);
		if (r > s->rounds)
			r = s->rounds;
		if (rh->round_end[r] > rh->peer.steps)
			return (rh->round_end[r]);
	}
	return (rh->peer.steps);
}

/* Returns 1 when key is an item of the list s ("a,b c"), else 0. */
static int
run_peer_in_list(const char *s, const char *key)
{
	size_t	n = strlen(key), l;

	while (*s != '\0') {
		s += strspn(s, ", \t");
		l = strcspn(s, ", \t");
		if (l == n && l > 0 && strncmp(s, key, n) == 0)
			return (1);
		s += l;
	}
	return (0);
}

/* Returns the first metric of smp that cmd c does not read, or NULL. */
static const char *
run_peer_metric(const struct run_host *rh, const struct proto_cmd *c,
    const struct proto_sample *smp)
{
	size_t	i, k;

	if (!c->has_mkeys)
		return (NULL);
	for (i = 0; i < smp->nmetrics; i++) {
		for (k = 0; k < c->nmkeys; k++) {
			if (strcmp(c->mkeys[k], smp->metrics[i].key) == 0)
				break;
		}
		if (k == c->nmkeys && !run_peer_in_list(rh->plan.counters,
		    smp->metrics[i].key))
			return (smp->metrics[i].key);
	}
	return (NULL);
}

int
run_peer_sample(struct run_host *rh, const struct proto_sample *smp)
{
	const struct proto_plan	*p = &rh->plan;
	const struct proto_step	*st;
	struct host		*h = rh->h;
	const char		*m;
	uint32_t		 allowed;

	if (smp->round > rh->run->suite->rounds) {
		host_refuse(h, "host %s sent a sample for round %u, its plan "
		    "has %u", h->name, smp->round, rh->run->suite->rounds);
		return (-1);
	}
	if (smp->step >= p->nsteps) {
		host_refuse(h, "host %s sent a sample for step %u, its plan "
		    "has %zu", h->name, smp->step, p->nsteps);
		return (-1);
	}
	st = &p->steps[smp->step];
	if (smp->cmd != st->cmd || smp->round != st->round ||
	    smp->warmup != st->warmup) {
		host_refuse(h, "host %s sent a sample for step %u as command "
		    "%u, round %u%s; its plan has command %u, round %u%s "
		    "there", h->name, smp->step, smp->cmd, smp->round,
		    smp->warmup ? " (warmup)" : "", st->cmd, st->round,
		    st->warmup ? " (warmup)" : "");
		return (-1);
	}
	allowed = run_peer_allowed(rh);
	if (smp->step >= allowed) {
		host_refuse(h, "host %s sent a sample for step %u (round "
		    "%u), beyond the %u steps granted so far", h->name,
		    smp->step, smp->round, allowed);
		return (-1);
	}
	if (smp->attempt < 1 || smp->attempt > RUN_PEER_ATTEMPTS) {
		host_refuse(h, "host %s sent a sample of attempt %u (1 to %d)",
		    h->name, smp->attempt, RUN_PEER_ATTEMPTS);
		return (-1);
	}
	if ((m = run_peer_metric(rh, &p->cmds[st->cmd], smp)) != NULL) {
		host_refuse(h, "host %s sent a sample of %s/%s with metric "
		    "'%s', which its plan does not read", h->name,
		    p->cmds[st->cmd].bench, p->cmds[st->cmd].variant, m);
		return (-1);
	}
	return (0);
}

int
run_peer_duplicate(struct run_host *rh)
{
	if (++rh->peer.ndups > RUN_PEER_DUPS_MAX(rh)) {
		host_refuse(rh->h, "host %s sent more than %zu samples already "
		    "stored", rh->h->name, RUN_PEER_DUPS_MAX(rh));
		return (-1);
	}
	return (0);
}

int
run_peer_status(struct run_host *rh)
{
	if (++rh->peer.nstatus > RUN_PEER_STATUS_MAX) {
		host_refuse(rh->h, "host %s sent more than %d STATUS messages",
		    rh->h->name, RUN_PEER_STATUS_MAX);
		return (-1);
	}
	return (0);
}

void
run_peer_grant(struct run *run, struct run_host *rh)
{
	struct run_peer	*pe = &rh->peer;

	/*
	 * A look reloads the record: made once per block, when a sample
	 * came since the last; a repeat is answered from the last look.
	 */
	if (!run->suite->auto_rounds || rh->round_end == NULL ||
	    (pe->looked && (pe->final || pe->nstored == pe->looked_at))) {
		if (++pe->repeats > RUN_PEER_REPEAT_MAX) {
			host_refuse(rh->h, "host %s sent more than %d "
			    "waiting-grant messages without a sample in "
			    "between", rh->h->name, RUN_PEER_REPEAT_MAX);
			return;
		}
		if (pe->looked && host_grant(rh->h, pe->grant, pe->final) != 0)
			log_warnx("%s: grant: %s", rh->h->name, rh->h->error);
		return;
	}
	pe->repeats = 0;
	pe->looked = 1;
	pe->looked_at = pe->nstored;
	run_looks_grant(run, rh);
}

int
run_peer_progs(struct run_host *rh, const struct proto_progs *ps)
{
	struct host	*h = rh->h;
	size_t		 i, j, c;

	if (++rh->peer.nprogs > RUN_PEER_PROGS_MAX) {
		host_refuse(h, "host %s sent PROGS more than %d time%s for one "
		    "plan", h->name, RUN_PEER_PROGS_MAX,
		    RUN_PEER_PROGS_MAX == 1 ? "" : "s");
		return (-1);
	}
	for (i = 0; i < ps->n; i++) {
		for (c = 0; c < rh->plan.ncmds; c++) {
			if (rh->plan.cmds[c].has_host && strcmp(
			    rh->plan.cmds[c].host, ps->v[i].prog) == 0)
				break;
		}
		for (j = 0; j < i; j++) {
			if (strcmp(ps->v[j].prog, ps->v[i].prog) == 0)
				break;
		}
		if (c == rh->plan.ncmds || j < i) {
			host_refuse(h, "host %s sent PROGS with host program "
			    "'%.64s' %s", h->name, ps->v[i].prog, j < i ?
			    "twice" : "that its plan does not name");
			return (-1);
		}
	}
	return (0);
}

void
run_peer_session(struct run_host *rh)
{
	rh->peer.nprogs = 0;
	rh->peer.repeats = 0;
	rh->peer.ndups = 0;
	if (rh->peer.steps == 0)
		rh->peer.steps = rh->plan.granted != 0 ? rh->plan.granted :
		    (uint32_t)rh->plan.nsteps;
}
