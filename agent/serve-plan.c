/*
 * A PLAN, run: the run lock, its files verified, its journal opened (and
 * what a lost agent left behind taken up), its pins, counters and host
 * programs, then its steps, each once the host is quiet and granted,
 * journaled and sent; DONE at the end.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cache.h"
#include "agent/facts.h"
#include "agent/hostprog.h"
#include "agent/journal.h"
#include "agent/proc.h"
#include "agent/serve-int.h"
#include "agent/workdir.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/xmalloc.h"

#define SERVE_VERSION_MS	5000	/* ms for a host program's --version */

/* Returns 1 when a command of plan runs the file sha. */
static int
serve_plan_is_exe(const struct proto_plan *plan, const char *sha)
{
	size_t	i;

	for (i = 0; i < plan->ncmds; i++) {
		if (strcmp(plan->cmds[i].exe, sha) == 0)
			return (1);
	}
	return (0);
}

/*
 * Kills the process group of pid, which a lost agent journaled running
 * with identity ident, when pid is still that process; leaves it alone
 * when it is another one, gone, or of unknown identity.
 */
static void
serve_plan_kill_left(uint32_t pid, const char *ident)
{
	char	now[PROC_IDENT_LEN];

	if (ident[0] == '\0') {
		log_info("process %u left by the lost agent: no identity in "
		    "the journal, left alone", pid);
		return;
	}
	if (proc_ident((pid_t)pid, now, sizeof now) != 0)
		return;		/* gone */
	if (strcmp(now, ident) != 0) {
		log_info("process %u is not the benchmark the lost agent "
		    "left (%s, not %s): left alone", pid, now, ident);
		return;
	}
	if (kill(-(pid_t)pid, SIGKILL) == 0)
		log_info("killed process group %u left by the lost agent", pid);
}

/*
 * Opens the journal of this run: a new one, or the one a lost
 * coordinator's agent left, whose progress fills pr; resends the samples
 * the coordinator does not have and stops what the lost agent left
 * running. Returns 0 or -1 with a reason in why.
 */
static int
serve_plan_journal(struct serve *s, const struct proto_plan *plan,
    struct journal_progress *pr, char *why, size_t len)
{
	uint32_t	step;

	s->journal = journal_open(s->rundir, s->run_id, s->host, plan, pr,
	    serve_msg_resend, s, why, len);
	if (s->journal == -1)
		return (-1);
	if (pr->resumed)
		log_info("run %s: resuming from the journal (%u samples)",
		    s->run_id, pr->nsamples);
	/*
	 * A benchmark its dead agent left running must not overlap ours. Its
	 * pid may name another process by now (after a reboot, or once the
	 * pids wrapped): only a process with the identity journaled is ours.
	 */
	for (step = 0; step < plan->nsteps; step++) {
		if (pr->started[step] > pr->ended[step] && pr->pid[step] > 1)
			serve_plan_kill_left(pr->pid[step], pr->ident[step]);
	}
	s->seq = (uint32_t)(pr->last_seq + 1);
	return (0);
}

/*
 * Takes the run lock, verifies the plan's files (keeping its programs open
 * in files) and opens the run's journal. Returns 0, or -1 with the code
 * and the words of the error for the coordinator.
 */
static int
serve_plan_prepare(struct serve *s, const struct proto_plan *plan,
    struct cache_file *files, struct journal_progress *pr, const char **code,
    char *why, size_t len)
{
	size_t	i;

	/*
	 * A resume that brings another plan than the journal's is refused
	 * before it takes the run over: the agent measuring that journal
	 * carries on, and the journal stays whole for a resume that brings
	 * the run's own plan.
	 */
	if (!journal_same_plan(s->rundir, plan)) {
		*code = "plan";
		snprintf(why, len, "%s/journal holds another plan for run %s "
		    "(other settings, programs or files than at its start): "
		    "refused; the journal is kept and its agent, if any, "
		    "carries on", s->rundir, s->run_id);
		return (-1);
	}
	/* Another run's: waited for, as long as the load gate waits. */
	if (s->lockfd == -1 && (s->lockfd = serve_busy_lock(s, plan, code,
	    why, len)) == -1)
		return (-1);
	/* Each pushed program's name, before its file is verified. */
	for (i = 0; i < plan->ncmds; i++) {
		if (plan->cmds[i].has_name && !plan->cmds[i].has_host &&
		    cache_link_name(&s->cache, plan->cmds[i].exe,
		    plan->cmds[i].name) != 0 && errno != ENOENT)
			log_warn("cannot name cache file %s %s",
			    plan->cmds[i].exe, plan->cmds[i].name);
	}
	for (i = 0; i < plan->nfiles; i++) {
		if (cache_check(&s->cache, plan->files[i], &files[i]) != 0) {
			*code = "file";
			snprintf(why, len, "file %s is not in the cache of %s "
			    "(or does not match its hash)", plan->files[i],
			    s->workdir);
			return (-1);
		}
		/* Only programs are kept open: a plan may have many files. */
		if (!serve_plan_is_exe(plan, plan->files[i]))
			cache_files_close(&files[i], 1);
	}
	if (workdir_mkdirs(s->rundir) == -1) {
		*code = "workdir";
		snprintf(why, len, "cannot create %s: %s", s->rundir,
		    strerror(errno));
		return (-1);
	}
	if (serve_plan_journal(s, plan, pr, why, len) != 0) {
		*code = "journal";
		return (-1);
	}
	return (0);
}

/*
 * Checks the plan's CPU list. A bad one is an error; an OS without
 * affinity (macOS) runs unpinned and says so. Returns 0, or -1 with the
 * error's words in why.
 */
static int
serve_plan_pin(struct serve *s, const struct proto_plan *plan, char *why,
    size_t len)
{
	struct proto_facts	f;
	char			err[256];

	s->pin = plan->pin[0] != '\0' ? plan->pin : NULL;
	if (s->pin == NULL)
		return (0);
	if (facts_pin(s->pin, err, sizeof err) == 0) {
		facts_pin(NULL, err, sizeof err);
		return (0);
	}
	memset(&f, 0, sizeof f);
	facts_collect(&f);
	if (strcmp(f.os, "linux") == 0) {
		snprintf(why, len, "pin = %s: %s", s->pin, err);
		return (-1);
	}
	serve_msg_note(s, "pinning not applied", err);
	s->pin = NULL;
	return (0);
}

/*
 * Finds which of the plan's hardware counters the kernel lets us read;
 * the runs measure those, and the coordinator hears of the others.
 */
static void
serve_plan_counters(struct serve *s, const struct proto_plan *plan)
{
	struct facts_counters	probe;
	/* With "counters not measured: ", it must fit a STATUS detail. */
	char			why[sizeof ((struct proto_state *)0)->detail -
				    32];
	int			n, k;

	s->counters = NULL;
	if (plan->counters[0] == '\0')
		return;
	n = facts_counters_open(&probe, plan->counters, why, sizeof why);
	s->ctrlist[0] = '\0';
	for (k = 0; k < n; k++)
		snprintf(s->ctrlist + strlen(s->ctrlist),
		    sizeof s->ctrlist - strlen(s->ctrlist), "%s%s",
		    k ? "," : "", probe.name[k]);
	facts_counters_close(&probe, NULL);
	if (n > 0)
		s->counters = s->ctrlist;
	if (n < 0 || why[0] != '\0')
		serve_msg_note(s, "counters not measured", why);
}

/*
 * Stops the bench of command cmd on this host after round 1: every command
 * of that bench is marked, so that their later rounds are skipped, and the
 * coordinator is told why (a STATUS "stopped" whose detail starts with the
 * bench's name and ": ").
 */
static void
serve_plan_stop_bench(struct serve *s, const struct proto_plan *plan,
    uint32_t cmd, const char *why)
{
	char	detail[sizeof ((struct proto_state *)0)->detail];
	size_t	k;

	for (k = 0; k < plan->ncmds; k++) {
		if (strcmp(plan->cmds[k].bench, plan->cmds[cmd].bench) == 0)
			s->stopped[k] = 1;
	}
	snprintf(detail, sizeof detail, "%s: %s", plan->cmds[cmd].bench, why);
	log_info("%s", detail);
	/* The samples it stopped after go before the word of it. */
	(void)serve_msg_flush_sync(s);
	serve_msg_status(s, "stopped", facts_load1(), 0, 0, detail);
}

/*
 * Decides, once the first round's step of a command has ended with smp
 * after every attempt failed the same way (same, from serve_plan_step),
 * that its bench stops on this host after that round: journaled first,
 * so that a resumed agent skips the same steps.
 */
static void
serve_plan_stop_check(struct serve *s, const struct proto_plan *plan,
    const struct proto_sample *smp, int same)
{
	char	why[JOURNAL_STOP_WHY], how[32];
	size_t	n;

	if (!same || smp->warmup || smp->round != 1 || s->stopped[smp->cmd] ||
	    (smp->status != PROTO_ST_FAILED && smp->status != PROTO_ST_SIGNAL))
		return;
	if (smp->status == PROTO_ST_SIGNAL)
		snprintf(how, sizeof how, "signal %d", smp->signal);
	else if (smp->exit_code != 0)
		snprintf(how, sizeof how, "exit %d", smp->exit_code);
	else	/* it did not start, or the agent failed it: why follows */
		snprintf(how, sizeof how, "failed");
	n = strcspn(smp->err_tail, "\n");
	snprintf(why, sizeof why, "stopped after round 1: every attempt of %s "
	    "failed the same way: %s%s%.*s", plan->cmds[smp->cmd].variant, how,
	    n > 0 ? ": " : "", (int)(n > 160 ? 160 : n), smp->err_tail);
	if (journal_stopped(s->journal, smp->cmd, why) != 0)
		log_warn("journal");
	serve_plan_stop_bench(s, plan, smp->cmd, why);
}

/*
 * Returns 1 when two attempts failed the same way: the same status, exit
 * status or signal and the same first line of stderr.
 */
static int
serve_plan_same_way(const struct proto_sample *a, const struct proto_sample *b)
{
	size_t	n = strcspn(a->err_tail, "\n");

	return (a->status == b->status && a->exit_code == b->exit_code &&
	    a->signal == b->signal && n == strcspn(b->err_tail, "\n") &&
	    strncmp(a->err_tail, b->err_tail, n) == 0);
}

/*
 * Notes the end of a step: a command whose first step failed every attempt
 * (a program that crashes each time) is not retried again, as its retries
 * would only repeat the crash; a first round that failed every attempt the
 * same way stops the bench (serve_plan_stop_check).
 */
static void
serve_plan_step_ended(struct serve *s, const struct proto_plan *plan,
    const struct proto_sample *smp, int same)
{
	serve_plan_stop_check(s, plan, smp, same);
	if (s->cmd_ran[smp->cmd])
		return;
	s->cmd_ran[smp->cmd] = 1;
	if (smp->status != PROTO_ST_OK && smp->attempt > 1) {
		s->no_retry[smp->cmd] = 1;
		log_info("command %u failed every attempt of its first run: "
		    "not retried again", smp->cmd);
	}
}

/*
 * One attempt of step i: journaled as started, run, its sample journaled
 * and batched for sending into msg. Returns 0, SERVE_STOP, or -1.
 */
static int
serve_plan_attempt(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, uint32_t i, uint32_t attempt,
    struct proto_msg *msg)
{
	int	r;

	if (journal_started(s->journal, i, attempt) != 0) {
		log_warn("journal");
		return (-1);
	}
	if ((r = serve_hook_attempt(s, plan, files, i, attempt,
	    &msg->u.sample)) != 0)
		return (r);
	msg->u.sample.seq = s->seq++;
	if (serve_msg_sample(s, msg) != 0)
		return (-1);
	return (0);
}

/*
 * Runs step i from attempt on: again while a signal it did not get from us
 * kills it, up to the plan's retries; journals and sends each sample.
 * Returns 0, SERVE_STOP, or -1.
 */
static int
serve_plan_step(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, uint32_t i, uint32_t attempt,
    uint32_t *nsent)
{
	struct proto_msg	 msg;
	struct proto_sample	*smp = &msg.u.sample, first;
	uint32_t		 from = attempt;
	int			 r, same = 1;

	memset(&msg, 0, sizeof msg);
	memset(&first, 0, sizeof first);
	msg.type = PROTO_SAMPLE;
	if ((r = serve_hook_setup(s, plan, files,
	    &plan->cmds[plan->steps[i].cmd])) != 0)
		return (r);
	for (;; attempt++) {
		if ((r = serve_msg_settle(s)) != 0)
			return (r);
		if ((r = serve_attempt_begin()) != 0)
			return (r);
		r = serve_plan_attempt(s, plan, files, i, attempt, &msg);
		serve_attempt_end();
		if (r != 0)
			return (r);
		(*nsent)++;
		/* A resumed step's earlier attempts are not known here. */
		if (attempt == from) {
			first = *smp;
			same = attempt == 1;
		} else if (!serve_plan_same_way(&first, smp))
			same = 0;
		if (smp->status != PROTO_ST_SIGNAL || attempt > plan->retries ||
		    s->no_retry[smp->cmd]) {
			serve_plan_step_ended(s, plan, smp, same);
			return (0);
		}
		log_info("step %u killed by signal %d: attempt %u", i,
		    smp->signal, attempt + 1);
	}
}

/*
 * Returns 1 when step i is skipped: a round after the first of a bench
 * stopped on this host.
 */
static int
serve_plan_skip(const struct serve *s, const struct proto_plan *plan,
    uint32_t i)
{
	const struct proto_step	*st = &plan->steps[i];

	return (s->stopped[st->cmd] && !st->warmup && st->round > 1);
}

/*
 * Takes up the benches a lost agent of this run stopped (its journal's
 * 'K' records) and tells the coordinator again, which may not have heard.
 */
static void
serve_plan_stopped_before(struct serve *s, const struct proto_plan *plan,
    const struct journal_progress *pr)
{
	size_t	k;

	for (k = 0; k < plan->ncmds; k++) {
		if (pr->stopped[k] && !s->stopped[k])
			serve_plan_stop_bench(s, plan, (uint32_t)k,
			    pr->stop_why[k]);
	}
}

/*
 * The end of step i: the batch is sent, and the journal flushed to disk
 * with one fsync once its oldest unflushed sample is SERVE_SYNC_MS old
 * (serve_msg_flush), at the end of the round in which the batch's
 * oldest sample reached SERVE_SYNC_MS (every round, for rounds of that
 * or longer), within a round once it is SERVE_BATCH_MS old, and after
 * the plan's last step (synced then). Short rounds share one send, one
 * ACK and one sync: a round's end that sent its samples, and waited for
 * their ACK, made the next round's first run 20-40 us slower
 * (bench/notes/floor.md).
 * Returns 0 or -1.
 */
static int
serve_plan_round_end(struct serve *s, const struct proto_plan *plan,
    uint32_t i)
{
	if (i + 1 == plan->nsteps)
		return (serve_msg_flush_sync(s));
	if (!serve_msg_batch_due(s, plan->steps[i + 1].round !=
	    plan->steps[i].round))
		return (0);
	return (serve_msg_flush(s));
}

/*
 * Runs the steps the journal does not show done, each once the host is
 * quiet. Returns 0 (with *ok cleared and reason filled when the host
 * stayed busy), SERVE_STOP, or -1.
 */
static int
serve_plan_steps(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, const struct journal_progress *pr,
    uint32_t *nsent, int *ok, char *reason, size_t len)
{
	uint32_t	i, attempt;
	int32_t		cl;
	size_t		k;
	int		r, settled = 0;

	for (i = 0; i < plan->nsteps; i++) {
		if (journal_step_done(plan, pr, i) || serve_plan_skip(s, plan,
		    i))
			continue;
		if ((r = serve_msg_poll(s)) != 0)
			return (r);
		if (s->granted > 0 && i >= s->granted) {
			/* The coordinator grants on what it was sent. */
			if (serve_msg_flush_sync(s) != 0)
				return (-1);
			if ((r = serve_gate_wait_grant(s, i)) == 1)
				break;
			if (r != 0)
				return (r);
		}
		r = serve_gate_quiet(s, plan, reason, len);
		if (r == 1) {
			*ok = 0;
			break;
		}
		if (r != 0)
			return (r);
		if (!settled && (r = serve_gate_settle(s, plan)) != 0)
			return (r);
		settled = 1;
		/* An attempt started but never ended died with its agent. */
		attempt = (pr->started[i] > pr->ended[i] ? pr->started[i] :
		    pr->ended[i]) + 1;
		if ((r = serve_plan_step(s, plan, files, i, attempt,
		    nsent)) != 0)
			return (r);
		if (serve_plan_round_end(s, plan, i) != 0)
			return (-1);
		cl = serve_hook_of(&plan->cmds[plan->steps[i].cmd],
		    PROTO_HOOK_CLEANUP);
		if (cl >= 0 && s->cleanup_last[cl] == i &&
		    (r = serve_hook_cleanup(s, plan, files, cl)) != 0)
			return (r);
	}
	/* Benches cut short (a busy host) are cleaned up too. */
	for (k = 0; k < plan->ncmds; k++) {
		if ((r = serve_hook_cleanup(s, plan, files, (int32_t)k)) != 0)
			return (r);
	}
	return (0);
}

/* Lets go of the plan's host programs and hook bookkeeping. */
static void
serve_plan_free(struct serve *s)
{
	size_t	i;

	for (i = 0; i < s->nprogs; i++)
		cache_files_close(&s->progs[i].f, 1);
	free(s->progs);
	s->progs = NULL;
	s->nprogs = 0;
	serve_hook_free(s);
}

/*
 * Resolves the plan's host programs before anything is measured: found,
 * hashed, held open, asked for their --version; and tells the coordinator
 * what it found (PROGS). Returns 0, 1 with the error's words in why (a
 * program not found), SERVE_STOP or -1.
 */
static int
serve_plan_progs(struct serve *s, const struct proto_plan *plan, char *why,
    size_t len)
{
	struct proto_msg	 msg;
	struct serve_prog	*sp;
	char			**envp;
	size_t			 i, k;
	int			 r;

	s->progs = xcalloc(plan->ncmds + 1, sizeof *s->progs);
	for (i = 0; i < plan->ncmds; i++) {
		if (!plan->cmds[i].has_host)
			continue;
		for (k = 0; k < s->nprogs; k++) {
			if (strcmp(s->progs[k].name, plan->cmds[i].host) == 0)
				break;
		}
		if (k < s->nprogs)
			continue;
		sp = &s->progs[s->nprogs];
		snprintf(sp->name, sizeof sp->name, "%s", plan->cmds[i].host);
		if (hostprog_resolve(sp->name, &sp->f, why, len) != 0)
			return (1);
		s->nprogs++;
		envp = serve_exec_envp(&plan->cmds[i]);
		r = hostprog_version(&sp->f, envp, s->rundir,
		    serve_stop_pipe[0], SERVE_VERSION_MS, sp->version,
		    sizeof sp->version);
		free(envp);
		if (r != 0)
			return (SERVE_STOP);
		log_info("host program %s: %s (SHA-256 %s) %s", sp->name,
		    sp->f.path, sp->f.sha, sp->version);
	}
	if (s->nprogs == 0)
		return (0);
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_PROGS;
	msg.u.progs.n = s->nprogs;
	msg.u.progs.v = xcalloc(s->nprogs, sizeof *msg.u.progs.v);
	for (k = 0; k < s->nprogs; k++) {
		sp = &s->progs[k];
		snprintf(msg.u.progs.v[k].prog, sizeof msg.u.progs.v[k].prog,
		    "%s", sp->name);
		snprintf(msg.u.progs.v[k].path, sizeof msg.u.progs.v[k].path,
		    "%s", sp->f.path);
		memcpy(msg.u.progs.v[k].sha, sp->f.sha, PROTO_SHA_HEX);
		snprintf(msg.u.progs.v[k].version,
		    sizeof msg.u.progs.v[k].version, "%s", sp->version);
	}
	/* Detached (no coordinator), there is no one to tell. */
	r = s->detached ? 0 : serve_msg_send(s, &msg);
	free(msg.u.progs.v);
	return (r);
}

/*
 * Verifies a plan's files, then runs its steps (from its journal when the
 * run is being resumed), journaling and streaming samples, and ends with
 * DONE. Returns 0, SERVE_STOP, or -1.
 */
int
serve_plan(struct serve *s, const struct proto_plan *plan)
{
	struct proto_msg	 msg;
	struct cache_file	*files;
	struct journal_progress	 pr;
	const char		*code = "pin";	/* unless prepare says */
	char			 reason[256] = "";
	char			 why[sizeof msg.u.error.msg];
	uint32_t		 i, nsent = 0;
	int			 r, ok = 1;

	memset(&pr, 0, sizeof pr);
	s->cmd_ran = xcalloc(plan->ncmds + 1, 1);
	s->no_retry = xcalloc(plan->ncmds + 1, 1);
	s->stopped = xcalloc(plan->ncmds + 1, 1);
	files = xcalloc(plan->nfiles + 1, sizeof *files);
	for (i = 0; i <= plan->nfiles; i++)
		files[i].fd = -1;
	if (serve_plan_prepare(s, plan, files, &pr, &code, why,
	    sizeof why) != 0 || serve_plan_pin(s, plan, why, sizeof why) != 0) {
		r = serve_msg_error(s, code, "%s", why);
		goto out;
	}
	serve_plan_counters(s, plan);
	serve_plan_stopped_before(s, plan, &pr);
	serve_hook_init(s, plan);
	/* An open plan: as far as either the coordinator or the journal
	 * (grants a lost coordinator gave) says. */
	s->granted = plan->granted;
	s->final = 0;
	if (plan->granted > 0 && pr.granted > s->granted)
		s->granted = pr.granted;
	if (plan->granted > 0 && pr.final)
		s->final = 1;
	if ((r = serve_plan_progs(s, plan, why, sizeof why)) == 1) {
		r = serve_msg_error(s, "program", "%s", why);
		goto out;
	}
	if (r != 0)
		goto out;
	r = serve_plan_steps(s, plan, files, &pr, &nsent, &ok, reason,
	    sizeof reason);
	/* Whatever ended the steps, the batch is sent and on disk. */
	if (serve_msg_flush_sync(s) != 0 && r == 0)
		r = -1;
	if (r != 0)
		goto out;
	if (ok && s->hook_failed[0] != '\0') {
		ok = 0;
		snprintf(reason, sizeof reason, "%s", s->hook_failed);
	}
	s->plan_done = 1;
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_DONE;
	msg.u.done.nsamples = nsent;
	msg.u.done.ok = (uint8_t)ok;
	snprintf(msg.u.done.reason, sizeof msg.u.done.reason, "%s", reason);
	r = serve_msg_send(s, &msg);
out:
	serve_plan_free(s);
	journal_progress_free(&pr);
	cache_files_close(files, plan->nfiles);
	free(files);
	free(s->cmd_ran);
	free(s->no_retry);
	free(s->stopped);
	s->cmd_ran = s->no_retry = s->stopped = NULL;
	free(s->pend);
	s->pend = NULL;
	s->pend_cap = 0;
	return (r);
}
