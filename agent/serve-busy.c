/*
 * A host busy with another run: its run lock is held by an agent
 * measuring for another orch run. Waited for like a busy machine, for the
 * plan's load_wait, saying who holds it (a STATUS "waiting-host" at once,
 * then every few seconds), and refused only once the bound has passed.
 */
#include <stdio.h>
#include <string.h>

#include "agent/serve-int.h"
#include "agent/workdir.h"
#include "proto/chan.h"
#include "proto/log.h"
#include "proto/util.h"

#define SERVE_BUSY_TRY		1000	/* ms between tries of the lock */
#define SERVE_BUSY_TELL		5000	/* ms between STATUS while waiting */
#define SERVE_HANDOVER_TRY	20	/* ms between looks while the run's
					   agent ends its attempt in flight */
#define SERVE_HANDOVER_TELL	1000	/* ms of that before it is said */
#define SERVE_HANDOVER_SLACK	2000	/* ms past the longest timeout */
#define SERVE_HANDOVER_MAX	60000	/* ms at most (a command without a
					   timeout, or a longer one) */

/*
 * How long the agent a lost coordinator left may take to end its attempt
 * in flight and hand the run over: the plan's longest timeout, and a
 * little, within SERVE_HANDOVER_MAX; then it is stopped, the attempt
 * killed, to be run again.
 */
static int64_t
serve_busy_handover_ms(const struct proto_plan *plan)
{
	int64_t	longest = 0;
	size_t	i;

	for (i = 0; i < plan->ncmds; i++) {
		if (plan->cmds[i].timeout_ms == 0)
			return (SERVE_HANDOVER_MAX);
		if ((int64_t)plan->cmds[i].timeout_ms > longest)
			longest = plan->cmds[i].timeout_ms;
	}
	longest += SERVE_HANDOVER_SLACK;
	return (longest < SERVE_HANDOVER_MAX ? longest : SERVE_HANDOVER_MAX);
}

/*
 * Waits at most timeout_ms for a message, taking what may come between.
 * Returns 0, or -1 with why filled when the wait is over (BYE, a stop).
 */
static int
serve_busy_pause(struct serve *s, int timeout_ms, char *why, size_t len)
{
	struct proto_msg	msg;
	int			r;

	r = serve_msg_wait(s, &msg, timeout_ms);
	if (r == 0)	/* a BYE ends it */
		return (serve_msg_between(s, &msg) != 0 ? -1 : 0);
	if (r == SERVE_GONE || r == SERVE_STOP) {
		snprintf(why, len, "stopped while waiting for the host's run "
		    "lock");
		return (-1);
	}
	return (r == CHAN_TIMEOUT ? 0 : -1);
}

/*
 * Takes the run lock, trying every SERVE_BUSY_TRY while another run holds
 * it, for at most the plan's load_wait_ms (serve-int.h). An agent of this
 * run a lost coordinator left is asked to hand it over and waited for
 * (serve_busy_handover_ms), then stopped.
 */
int
serve_busy_lock(struct serve *s, const struct proto_plan *plan,
    const char **code, char *why, size_t len)
{
	enum workdir_take	how = WORKDIR_TAKE_ASK;
	int64_t			start = util_now_ms(), waited, told = -1;
	int64_t			asked = -1, handover_ms;
	int			fd;

	handover_ms = serve_busy_handover_ms(plan);

	for (;;) {
		fd = workdir_lock(s->workdir, s->run_id, s->host, how, why,
		    len);
		if (fd >= 0)
			return (fd);
		if (fd == -2) {
			*code = "workdir";
			return (-1);
		}
		if (fd == -3) {
			if (asked < 0)
				asked = util_now_ms();
			how = WORKDIR_TAKE_WAIT;
			waited = util_now_ms() - asked;
			if (waited >= handover_ms) {
				log_info("%s: not within %lld s; stopping it",
				    why, (long long)(waited / 1000));
				how = WORKDIR_TAKE_STOP;
				continue;
			}
			if (waited >= SERVE_HANDOVER_TELL && told < 0) {
				log_info("waiting: %s", why);
				serve_msg_status(s, "waiting-host", 0, 0,
				    (uint32_t)waited, why);
				told = util_now_ms();
			}
			if (serve_busy_pause(s, SERVE_HANDOVER_TRY, why,
			    len) != 0) {
				*code = "busy";
				return (-1);
			}
			continue;
		}
		*code = "busy";
		waited = util_now_ms() - start;
		if (waited >= (int64_t)plan->load_wait_ms) {
			if (waited > 0) {
				/* Ends with its load_wait spent. */
				size_t	n = strlen(why);

				snprintf(why + n, len - n, "; waited %lld s "
				    "(load_wait)", (long long)(waited / 1000));
			}
			return (-1);
		}
		if (told < 0 || util_now_ms() - told >= SERVE_BUSY_TELL) {
			if (told < 0)
				log_info("waiting: %s", why);
			serve_msg_status(s, "waiting-host", 0, 0,
			    (uint32_t)waited, why);
			told = util_now_ms();
		}
		if (serve_busy_pause(s, SERVE_BUSY_TRY, why, len) != 0)
			return (-1);
	}
}
