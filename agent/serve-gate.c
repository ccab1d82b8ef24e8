/*
 * What holds a plan's next step back: the load gate (the host must be
 * quiet, our own benchmarks aside) and, in an open plan, the GRANT the
 * coordinator gives at the end of each block.
 */
#include <math.h>
#include <stdio.h>

#include "agent/facts.h"
#include "agent/serve-int.h"
#include "proto/chan.h"
#include "proto/log.h"
#include "proto/util.h"

#define SERVE_WAIT_TELL		30000	/* ms between STATUS while waiting */

/*
 * Brings our own contribution to the 1-minute load average up to date and
 * notes whether a benchmark runs from now on. The kernel's load average is
 * an exponential average with a one-minute time constant of the number of
 * runnable tasks; our benchmark is one of them while it runs, so it must
 * not count as "busy" against us.
 */
void
serve_gate_self_load(struct serve *s, int running)
{
	int64_t	now = util_now_ms();
	double	decay;

	if (s->self_at != 0) {
		decay = exp(-(double)(now - s->self_at) / 60000.0);
		s->self_load = s->self_load * decay +
		    (s->self_running ? 1.0 : 0.0) * (1.0 - decay);
	}
	s->self_at = now;
	s->self_running = running;
}

/*
 * Waits up to ms for a message and handles it as one between steps.
 * Returns 0 (a message handled, or none came: the coordinator's silence or
 * its going is no reason to stop), SERVE_STOP or -1.
 */
static int
serve_gate_pause(struct serve *s, int ms)
{
	struct proto_msg	msg;
	int			r;

	r = serve_msg_wait(s, &msg, ms);
	if (r == 0)
		return (serve_msg_between(s, &msg) != 0 ? SERVE_STOP : 0);
	if (r == CHAN_TIMEOUT || r == SERVE_GONE)
		return (0);
	return (r);
}

/*
 * An open plan at the end of its grant: tells the coordinator (which then
 * looks at the rounds so far and answers with a GRANT) and waits for it,
 * again every SERVE_WAIT_TELL. Detached, it waits for nobody: the plan
 * ends with the blocks it was granted. Returns 0 when step i may run, 1
 * when the plan ends before it, SERVE_STOP or -1.
 */
int
serve_gate_wait_grant(struct serve *s, uint32_t i)
{
	int64_t			start = util_now_ms(), told = -1, now;
	int			r;
	char			detail[128];

	while (!s->final && i >= s->granted) {
		if (s->detached)
			return (1);
		now = util_now_ms();
		if (told < 0 || now - told >= SERVE_WAIT_TELL) {
			snprintf(detail, sizeof detail, "block done at step "
			    "%u: waiting for the coordinator's look", i);
			serve_msg_status(s, "waiting-grant", 0, 0,
			    (uint32_t)(now - start), detail);
			told = now;
		}
		if ((r = serve_gate_pause(s, SERVE_WAIT_TELL)) != 0)
			return (r);
	}
	return (i >= s->granted ? 1 : 0);
}

/*
 * The plan's settle before the first step this agent runs: orch's own
 * start-up (the agent's and the coordinator's first CPU use, which the
 * kernel's scheduler goes on weighing for some tens of milliseconds) then
 * no longer decides where the first programs start (docs/suites.md,
 * settle). Answers messages meanwhile. Returns 0, SERVE_STOP or -1.
 */
int
serve_gate_settle(struct serve *s, const struct proto_plan *plan)
{
	int64_t			end, left;
	int			r;

	if (!plan->has_settle_ms || plan->settle_ms == 0)
		return (0);
	log_debug("settling %u ms before the first run", plan->settle_ms);
	end = util_now_ms() + plan->settle_ms;
	while ((left = end - util_now_ms()) > 0) {
		if ((r = serve_gate_pause(s, (int)left)) != 0)
			return (r);
	}
	return (0);
}

/*
 * Waits until the 1-minute load is at most max_load per core, backing off,
 * for at most wait_ms; the samples of the rounds before (a batch shared by
 * short rounds) are sent and synced before the first wait. Returns 0 when
 * quiet, 1 when still busy (reason filled), SERVE_GONE or -1.
 */
int
serve_gate_quiet(struct serve *s, const struct proto_plan *plan,
    char *reason, size_t len)
{
	uint32_t		cores;
	double			load, others, limit;
	int64_t			start = util_now_ms(), waited;
	int			backoff = 1000, r, told = 0;
	char			detail[256];

	/* Gate off: not even the cores are read (this is before every step). */
	if (plan->max_load <= 0)
		return (0);
	cores = facts_cores();
	limit = plan->max_load * cores;
	for (;;) {
		serve_gate_self_load(s, 0);
		load = facts_load1();
		others = load - s->self_load;
		if (load < 0 || others <= limit)
			return (0);
		waited = util_now_ms() - start;
		if (waited >= (int64_t)plan->load_wait_ms) {
			snprintf(reason, len, "too busy: 1-minute load %.2f "
			    "(%.2f without our benchmarks) stayed above %.2f "
			    "(max_load %.4g x %u cores) for %lld s", load,
			    others, limit, plan->max_load, cores,
			    (long long)(waited / 1000));
			return (1);
		}
		snprintf(detail, sizeof detail, "waiting: 1-minute load %.2f "
		    "above %.2f (max_load %.4g x %u cores)", others, limit,
		    plan->max_load, cores);
		if (!told && serve_msg_flush_sync(s) != 0)
			return (-1);
		if (!told || backoff >= 8000)
			log_info("%s", detail);
		serve_msg_status(s, "waiting-load", load, limit,
		    (uint32_t)waited, detail);
		told = 1;
		if (backoff > (int)(plan->load_wait_ms - waited))
			backoff = (int)(plan->load_wait_ms - waited);
		if ((r = serve_gate_pause(s, backoff)) != 0)
			return (r);
		/* At least every 30 s: the coordinator shows each wait. */
		backoff = backoff * 2 < SERVE_WAIT_TELL ? backoff * 2 :
		    SERVE_WAIT_TELL;
	}
}
