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

/*
 * Takes the run lock, trying every SERVE_BUSY_TRY while another run holds
 * it, for at most the plan's load_wait_ms (serve-int.h).
 */
int
serve_busy_lock(struct serve *s, const struct proto_plan *plan,
    const char **code, char *why, size_t len)
{
	struct proto_msg	msg;
	int64_t			start = util_now_ms(), waited, told = -1;
	int			fd, r;

	for (;;) {
		fd = workdir_lock(s->workdir, s->run_id, s->host, why, len);
		if (fd >= 0)
			return (fd);
		if (fd == -2) {
			*code = "workdir";
			return (-1);
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
		r = serve_msg_wait(s, &msg, SERVE_BUSY_TRY);
		if (r == 0) {
			if (serve_msg_between(s, &msg) != 0)
				return (-1);	/* BYE */
		} else if (r == SERVE_GONE || r == SERVE_STOP) {
			snprintf(why, len, "stopped while waiting for the "
			    "host's run lock");
			return (-1);
		} else if (r != CHAN_TIMEOUT)
			return (-1);
	}
}
