/*
 * A bench's hooks around its runs: setup once before its first step,
 * prepare before each attempt, cleanup after its last step; a failed
 * setup or prepare is the sample's failure, a failed cleanup the plan's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/facts.h"
#include "agent/serve-int.h"
#include "proto/log.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

/* Returns command c's hook k (PROTO_HOOK_*), or -1. */
int32_t
serve_hook_of(const struct proto_cmd *c, int k)
{
	return (c->has_hooks ? c->hooks[k] : -1);
}

/*
 * Runs hook command h (what: "prepare", "setup", "cleanup") once, not
 * measured. Returns 0 when it exited 0, 1 when it failed (why: "prepare
 * failed: exit 3", and the end of its stderr), or SERVE_STOP.
 */
static int
serve_hook_run(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, int32_t h, const char *what, char *why,
    size_t len)
{
	struct proto_sample	*smp;
	int			 r;

	smp = xcalloc(1, sizeof *smp);
	if ((r = serve_exec_run(s, plan, files, &plan->cmds[h], smp, 1)) == 0 &&
	    smp->status != PROTO_ST_OK) {
		r = 1;
		if (smp->status == PROTO_ST_FAILED && smp->exit_code != 0 &&
		    strncmp(smp->err_tail, "exit code", 9) != 0)
			snprintf(why, len, "%s failed: exit %d: %s", what,
			    (int)smp->exit_code, smp->err_tail);
		else if (smp->status == PROTO_ST_FAILED && smp->exit_code != 0)
			snprintf(why, len, "%s failed: exit %d", what,
			    (int)smp->exit_code);
		else
			snprintf(why, len, "%s failed: %s", what,
			    smp->err_tail);
		log_info("%s %s: %s", plan->cmds[h].bench, what, why);
	}
	free(smp);
	return (r);
}

/* Fills smp as attempt of step stepno, failed before it ran, for why. */
static void
serve_hook_not_run(const struct proto_plan *plan, uint32_t stepno,
    uint32_t attempt, struct proto_sample *smp, const char *why)
{
	memset(smp, 0, sizeof *smp);
	smp->step = stepno;
	smp->cmd = plan->steps[stepno].cmd;
	smp->round = plan->steps[stepno].round;
	smp->warmup = plan->steps[stepno].warmup;
	smp->attempt = attempt;
	smp->load1 = facts_load1();
	smp->start_ns = util_clock_ns(CLOCK_REALTIME);
	smp->status = PROTO_ST_FAILED;
	snprintf(smp->err_tail, sizeof smp->err_tail, "%s", why);
}

/*
 * Runs cmd's setup hook when this session has not yet: once per host
 * before the first step of its bench. Returns 0 or SERVE_STOP.
 */
int
serve_hook_setup(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, const struct proto_cmd *cmd)
{
	int32_t	su = serve_hook_of(cmd, PROTO_HOOK_SETUP);
	int32_t	cl = serve_hook_of(cmd, PROTO_HOOK_CLEANUP);
	int	r;

	/* A bench that started has its cleanup run, whatever happens. */
	if (cl >= 0)
		s->cleanup_due[cl] = 1;
	if (su < 0 || s->hook_state[su] != HOOK_NOT_RUN)
		return (0);
	r = serve_hook_run(s, plan, files, su, "setup", s->hook_why[su],
	    sizeof s->hook_why[su]);
	if (r == SERVE_STOP)
		return (r);
	s->hook_state[su] = r == 0 ? HOOK_OK : HOOK_FAILED;
	return (0);
}

/*
 * Runs cleanup hook k when due; a failure is a note now and the plan's
 * failure at its end. Returns 0 or SERVE_STOP.
 */
int
serve_hook_cleanup(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, int32_t k)
{
	char	why[PROTO_TAIL_MAX], what[PROTO_NAME_MAX + 16];
	int	r;

	if (k < 0 || !s->cleanup_due[k])
		return (0);
	s->cleanup_due[k] = 0;
	if ((r = serve_hook_run(s, plan, files, k, "cleanup", why,
	    sizeof why)) != 1)
		return (r);
	snprintf(what, sizeof what, "benchmark %s", plan->cmds[k].bench);
	serve_msg_note(s, what, why);
	if (s->hook_failed[0] == '\0')
		snprintf(s->hook_failed, sizeof s->hook_failed, "%s: %s", what,
		    why);
	return (0);
}

/*
 * Runs one attempt of step i into smp, with its hooks: not at all when its
 * bench's setup failed, not when its prepare hook failed (either is the
 * sample's failure). Returns 0 or SERVE_STOP.
 */
int
serve_hook_attempt(struct serve *s, const struct proto_plan *plan,
    const struct cache_file *files, uint32_t i, uint32_t attempt,
    struct proto_sample *smp)
{
	const struct proto_cmd	*cmd = &plan->cmds[plan->steps[i].cmd];
	int32_t			 su = serve_hook_of(cmd, PROTO_HOOK_SETUP);
	int32_t			 pp = serve_hook_of(cmd, PROTO_HOOK_PREPARE);
	char			 why[PROTO_TAIL_MAX];
	int			 r;

	if (su >= 0 && s->hook_state[su] == HOOK_FAILED) {
		serve_hook_not_run(plan, i, attempt, smp, s->hook_why[su]);
		return (0);
	}
	if (pp >= 0) {
		if ((r = serve_hook_run(s, plan, files, pp, "prepare", why,
		    sizeof why)) == SERVE_STOP)
			return (r);
		if (r == 1) {
			serve_hook_not_run(plan, i, attempt, smp, why);
			return (0);
		}
	}
	return (serve_exec_step(s, plan, files, i, attempt, smp));
}

/*
 * Sets up the hooks' bookkeeping for plan: nothing run yet, and the last
 * step of each cleanup hook's bench.
 */
void
serve_hook_init(struct serve *s, const struct proto_plan *plan)
{
	int32_t		cl;
	uint32_t	i;

	s->hook_state = xcalloc(plan->ncmds + 1, sizeof *s->hook_state);
	s->hook_why = xcalloc(plan->ncmds + 1, sizeof *s->hook_why);
	s->cleanup_due = xcalloc(plan->ncmds + 1, sizeof *s->cleanup_due);
	s->cleanup_last = xcalloc(plan->ncmds + 1, sizeof *s->cleanup_last);
	s->hook_failed[0] = '\0';
	for (i = 0; i < plan->nsteps; i++) {
		cl = serve_hook_of(&plan->cmds[plan->steps[i].cmd],
		    PROTO_HOOK_CLEANUP);
		if (cl >= 0)
			s->cleanup_last[cl] = i;
	}
}

/* Lets go of the hooks' bookkeeping. */
void
serve_hook_free(struct serve *s)
{
	free(s->hook_state);
	free(s->hook_why);
	free(s->cleanup_due);
	free(s->cleanup_last);
	s->hook_state = s->cleanup_due = NULL;
	s->hook_why = NULL;
	s->cleanup_last = NULL;
}
