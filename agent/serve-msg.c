/*
 * The agent's messages while it serves: waiting for one (watching the
 * lifeline and the stop pipe), sending, STATUS and notes, what arrives
 * while a plan runs (a GRANT taken), and a sample journaled and sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/facts.h"
#include "agent/journal.h"
#include "agent/serve-int.h"
#include "proto/chan.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/util.h"
#include "proto/xmalloc.h"

#define SERVE_SEND_TIMEOUT	30000	/* ms to hand a message to the peer */
#define SERVE_SETTLE_MS		100	/* ms to wait for a sample's ACK */
#define SERVE_SPIN_NS		500000	/* ns of it spent awake, polling */
#define SERVE_BATCH_MS		500	/* ms a sample may wait in the batch
					   before its round ends */
#define SERVE_SYNC_MS		20	/* ms a journaled sample may wait for
					   its send and fsync when rounds
					   are short */
#define SERVE_SEND_SLICE	200	/* ms a send waits before the lifeline
					   is looked at again */

/* Sends our log to RUNDIR/agent.log: stderr went with the coordinator. */
static void
serve_msg_detach_log(struct serve *s)
{
	char	path[PATH_MAX];
	int	fd;

	if (s->journal == -1)
		return;		/* no plan: nothing will run, nothing to log */
	snprintf(path, sizeof path, "%s/agent.log", s->rundir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0600)) == -1)
		return;
	dup2(fd, 2);
	close(fd);
}

/* The coordinator is gone: stop sending, carry on into the journal. */
static void
serve_msg_detach(struct serve *s)
{
	log_info("the coordinator is gone: carrying on detached");
	s->detached = 1;
	serve_msg_detach_log(s);
}

/*
 * Looks at the lifeline (stdin) without waiting. Returns 1 once it has
 * closed (then s->detached is set), else 0.
 */
static int
serve_msg_gone(struct serve *s)
{
	struct pollfd	pfd;
	char		buf[64];
	ssize_t		n;

	if (s->detached)
		return (1);
	pfd.fd = 0;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) != 1 || pfd.revents == 0)
		return (0);
	n = read(0, buf, sizeof buf);
	if (n > 0 || (n == -1 && (errno == EINTR || errno == EAGAIN)))
		return (0);
	serve_msg_detach(s);
	return (1);
}

/*
 * Hands an encoded message to the peer within SERVE_SEND_TIMEOUT, in
 * slices of SERVE_SEND_SLICE: after each slice that timed out or that a
 * signal interrupted (EINTR) it looks at the lifeline, and once the
 * coordinator is gone it sends no more (the journal keeps every sample
 * for a resume). Returns 0 (sent, or the peer gone) or -1 (logged).
 */
static int
serve_msg_deliver(struct serve *s, enum proto_type type, const uint8_t *buf,
    size_t len)
{
	int64_t	deadline = util_now_ms() + SERVE_SEND_TIMEOUT;
	char	err[CHAN_ERR_LEN];
	int	left;

	for (;;) {
		if (serve_msg_gone(s))
			return (0);
		left = (int)(deadline - util_now_ms());
		if (left > SERVE_SEND_SLICE)
			left = SERVE_SEND_SLICE;
		if (left < 1)
			left = 1;
		if (chan_send_encoded(&s->chan, type, buf, len, left, err,
		    sizeof err) == 0)
			return (0);
		if (serve_stopped || util_now_ms() >= deadline) {
			log_warnx("%s", err);
			return (-1);
		}
	}
}

/*
 * Waits for the next message, at most timeout_ms, watching the lifeline
 * (stdin) and the stop pipe. Returns 0 with msg filled, CHAN_TIMEOUT,
 * SERVE_GONE once when stdin closes (then s->detached is set), SERVE_STOP,
 * or -1.
 */
int
serve_msg_wait(struct serve *s, struct proto_msg *msg, int timeout_ms)
{
	struct pollfd	pfd[3];
	char		buf[64], err[CHAN_ERR_LEN];
	int64_t		deadline = util_now_ms() + timeout_ms;
	ssize_t		n;
	int		left, r, np;

	for (;;) {
		if (serve_stopped)
			return (SERVE_STOP);
		if (!s->detached) {
			r = chan_recv(&s->chan, msg, 0, err, sizeof err);
			if (r != CHAN_TIMEOUT) {
				if (r == -1)
					log_warnx("%s", err);
				return (r);
			}
		}
		left = (int)(deadline - util_now_ms());
		if (left <= 0)
			return (CHAN_TIMEOUT);
		np = 0;
		pfd[np].fd = serve_stop_pipe[0];
		pfd[np++].events = POLLIN;
		if (!s->detached) {
			pfd[np].fd = 0;
			pfd[np++].events = POLLIN;
			pfd[np].fd = chan_fd(&s->chan);
			pfd[np++].events = POLLIN;
		}
		if (poll(pfd, (nfds_t)np, left) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("poll");
			return (-1);
		}
		if (pfd[0].revents != 0)
			return (SERVE_STOP);
		/* A message first: a BYE sent before stdin closed wins. */
		if (np > 2 && pfd[2].revents != 0)
			continue;
		if (np > 1 && pfd[1].revents != 0) {
			n = read(0, buf, sizeof buf);
			if (n == 0 || (n == -1 && errno != EINTR &&
			    errno != EAGAIN)) {
				serve_msg_detach(s);
				return (SERVE_GONE);
			}
		}
	}
}

/* Sends msg unless the coordinator is gone; returns 0 or -1 (logged). */
int
serve_msg_send(struct serve *s, const struct proto_msg *msg)
{
	uint8_t	*buf;
	size_t	 len;
	int	 r, e;

	if (s->detached)
		return (0);	/* the journal keeps it for a resume */
	if ((e = proto_encode(msg, &buf, &len)) != 0) {
		log_warnx("encode %s: %s", proto_type_name(msg->type),
		    proto_strerror(e));
		return (-1);
	}
	r = serve_msg_deliver(s, msg->type, buf, len);
	free(buf);
	return (r);
}

/* Sends an ERROR message with a code and words. */
int
serve_msg_error(struct serve *s, const char *code, const char *fmt, ...)
{
	struct proto_msg	msg;
	va_list			ap;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_ERROR;
	snprintf(msg.u.error.code, sizeof msg.u.error.code, "%s", code);
	va_start(ap, fmt);
	vsnprintf(msg.u.error.msg, sizeof msg.u.error.msg, fmt, ap);
	va_end(ap);
	log_warnx("%s", msg.u.error.msg);
	return (serve_msg_send(s, &msg));
}

/* Sends a STATUS message; failures are logged, never fatal. */
void
serve_msg_status(struct serve *s, const char *state, double load, double limit,
    uint32_t waited_ms, const char *detail)
{
	struct proto_msg	msg;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_STATUS;
	snprintf(msg.u.state.state, sizeof msg.u.state.state, "%s", state);
	snprintf(msg.u.state.detail, sizeof msg.u.state.detail, "%s", detail);
	msg.u.state.load1 = load;
	msg.u.state.limit = limit;
	msg.u.state.waited_ms = waited_ms;
	serve_msg_send(s, &msg);
}

/* Tells the coordinator of a setting not applied, as a "note" STATUS. */
void
serve_msg_note(struct serve *s, const char *what, const char *why)
{
	char	note[300];

	snprintf(note, sizeof note, "%s: %s", what, why);
	log_info("%s", note);
	serve_msg_status(s, "note", facts_load1(), 0, 0, note);
}

/*
 * Takes a GRANT of an open plan: it only grows (a late, smaller one is a
 * no-op), and a final one ends the plan at the next step boundary.
 * Journaled first, so that a resumed agent knows how far it may go.
 */
static void
serve_msg_grant(struct serve *s, const struct proto_grant *g)
{
	if (g->granted <= s->granted && !g->final)
		return;
	if (journal_granted(s->journal, g->granted, g->final) != 0)
		log_warn("journal");
	if (g->granted > s->granted)
		s->granted = g->granted;
	if (g->final)
		s->final = 1;
	log_debug("grant: steps up to %u%s", s->granted,
	    s->final ? ", final" : "");
}

/*
 * Handles a message that arrives while a plan runs: an ACK moves what is
 * acknowledged, a BYE stops the plan (returns -1), anything else is noted
 * and ignored. Frees msg.
 */
int
serve_msg_between(struct serve *s, struct proto_msg *msg)
{
	if (msg->type == PROTO_BYE)
		s->bye = 1;
	else if (msg->type == PROTO_GRANT && s->granted > 0)
		serve_msg_grant(s, &msg->u.grant);
	else if (msg->type == PROTO_ACK) {
		if ((int64_t)msg->u.ack.seq > s->acked)
			s->acked = msg->u.ack.seq;
	} else
		log_warnx("ignored %s during a plan",
		    proto_type_name(msg->type));
	proto_msg_free(msg);
	return (s->bye ? -1 : 0);
}

/*
 * Handles messages that may arrive while a plan runs. Returns 0, or
 * SERVE_STOP (BYE, SIGTERM).
 */
int
serve_msg_poll(struct serve *s)
{
	struct proto_msg	msg;
	int			r;

	while ((r = serve_msg_wait(s, &msg, 0)) == 0) {
		if (serve_msg_between(s, &msg) != 0)
			return (SERVE_STOP);
	}
	return (r == SERVE_STOP ? SERVE_STOP : 0);
}

/*
 * Polls for the ACKs without sleeping, at most SERVE_SPIN_NS, when this
 * process may run on two CPUs or more. The coordinator answers a round's
 * samples within a few hundred microseconds on one machine; an agent that
 * slept for that (its CPU idle, the kernel and a VM's host free to put
 * that CPU into a deeper idle state) started its next runs slower: the
 * first program after a round's end 694 us against 656 us awake, the
 * floor run 607 us against 591 us (bench/notes/floor.md). On one CPU
 * the spin would take the time the answer needs (the coordinator's or
 * nanomsg's threads), so there is none.
 * No sched_yield() between the polls: side by side it lost most of the
 * gain. Returns 0 (acknowledged, or the spin's time is up: sleep for the
 * rest) or SERVE_STOP.
 */
static int
serve_msg_spin(struct serve *s)
{
	struct proto_msg	msg;
	int64_t			end;
	int			r;

	if (s->detached || s->sent < 0 || s->acked >= s->sent ||
	    facts_cpus_usable() < 2)
		return (0);
	end = util_clock_ns(CLOCK_MONOTONIC) + SERVE_SPIN_NS;
	while (!s->detached && s->sent >= 0 && s->acked < s->sent) {
		r = serve_msg_wait(s, &msg, 0);
		if (r == SERVE_STOP)
			return (SERVE_STOP);
		if (r == 0) {
			if (serve_msg_between(s, &msg) != 0)
				return (SERVE_STOP);
			continue;
		}
		/* Gone or an error: the sleeping wait sees it too. */
		if (r != CHAN_TIMEOUT ||
		    util_clock_ns(CLOCK_MONOTONIC) >= end)
			break;
	}
	return (0);
}

/*
 * Waits, at most SERVE_SETTLE_MS, until the coordinator has acknowledged
 * the last sample sent: on a small machine its recording of one sample
 * (decrypting, writing the record, answering) would otherwise share the
 * cores with the next measurement. On a slow link the bound lets the runs
 * go on; the journal keeps every sample either way. The first
 * SERVE_SPIN_NS of it are spent awake (serve_msg_spin). Returns 0 or
 * SERVE_STOP.
 */
int
serve_msg_settle(struct serve *s)
{
	struct proto_msg	msg;
	int64_t			deadline = util_now_ms() + SERVE_SETTLE_MS;
	int			r, left;

	if (serve_msg_spin(s) == SERVE_STOP)
		return (SERVE_STOP);
	while (!s->detached && s->sent >= 0 && s->acked < s->sent) {
		if ((left = (int)(deadline - util_now_ms())) <= 0)
			return (0);
		r = serve_msg_wait(s, &msg, left);
		if (r == SERVE_STOP)
			return (SERVE_STOP);
		if (r != 0)
			return (0);	/* no answer, gone or an error: go on */
		if (serve_msg_between(s, &msg) != 0)
			return (SERVE_STOP);
	}
	return (0);
}

/*
 * Journals a sample into the batch, without flushing it: the batch is
 * sent and then flushed once (serve_msg_flush) at its round's end.
 * Returns 0 or -1 (logged).
 */
int
serve_msg_sample(struct serve *s, const struct proto_msg *msg)
{
	struct serve_pend	*p;
	uint8_t			*buf;
	size_t			 len;

	if (proto_encode(msg, &buf, &len) != 0) {
		errno = EINVAL;
		log_warn("journal");
		return (-1);
	}
	if (journal_result(s->journal, buf, len) != 0) {
		log_warn("journal");
		free(buf);
		return (-1);
	}
	if (s->npend == s->pend_cap) {
		s->pend_cap = s->pend_cap == 0 ? 16 : s->pend_cap * 2;
		s->pend = xreallocarray(s->pend, s->pend_cap, sizeof *s->pend);
	}
	if (s->npend == 0)
		s->pend_since = util_now_ms();
	if (s->nunsynced++ == 0)
		s->unsynced_since = s->pend_since;
	p = &s->pend[s->npend++];
	p->buf = buf;
	p->len = len;
	p->seq = msg->u.sample.seq;
	return (0);
}

/*
 * Returns 1 when the batch is due to be sent: at a round's end (round_end)
 * once its oldest sample is SERVE_SYNC_MS old, so that short rounds share
 * a send and a sync; within a round once it is SERVE_BATCH_MS old, so that
 * a long round's samples are sent on the way, not at its end.
 */
int
serve_msg_batch_due(const struct serve *s, int round_end)
{
	return (s->npend > 0 && util_now_ms() - s->pend_since >=
	    (round_end ? SERVE_SYNC_MS : SERVE_BATCH_MS));
}

/*
 * Sends the batch's samples in order (unless detached: the journal keeps
 * them for a resume), then, when the oldest sample not yet on disk was
 * journaled SERVE_SYNC_MS ago or more, or when sync, flushes the journal
 * to disk with one fsync, before the next run starts (group commit).
 * A round of SERVE_SYNC_MS or longer is so flushed at its end, every
 * time; short rounds share a flush, so that the sync (about 0.3 ms on
 * this project's test VM) is not most of what lies between two rounds
 * of a short command. The sync runs between runs, never beside one: a
 * sync overlapped with the next round's first run (aio_fsync) made the
 * runs of true 15-40 us slower. The sync overlaps the coordinator's
 * work on the samples (decrypting, storing, answering), which the next
 * run waits for anyway. A crash of this machine loses nothing the
 * coordinator holds (a resumed plan runs again a step whose record the
 * journal lost, and the coordinator drops its samples as already
 * stored); a crash of both machines, or of this one while no
 * coordinator listens, loses at most the round being measured and the
 * samples of the SERVE_SYNC_MS before it (docs/reliability.md). Returns
 * 0 or -1 (logged); the batch is emptied either way.
 */
static int
serve_msg_flush_if(struct serve *s, int sync)
{
	size_t	i;
	int	r = 0;

	if (s->npend > 0 && !s->detached)
		log_debug("sending %zu samples, the oldest %lld ms old%s",
		    s->npend, (long long)(util_now_ms() - s->pend_since),
		    sync ? " (flushed now)" : "");
	for (i = 0; i < s->npend; i++) {
		if (r == 0 && !s->detached && serve_msg_deliver(s,
		    PROTO_SAMPLE, s->pend[i].buf, s->pend[i].len) != 0)
			r = -1;
		if (r == 0)
			s->sent = s->pend[i].seq;
		free(s->pend[i].buf);
	}
	s->npend = 0;
	if (!sync && (s->nunsynced == 0 ||
	    util_now_ms() - s->unsynced_since < SERVE_SYNC_MS))
		return (r);
	if (journal_sync(s->journal) != 0) {
		log_warn("journal");
		r = -1;
	}
	if (s->nunsynced > 0)
		log_debug("journal synced: %u samples, the oldest %lld ms "
		    "old%s", s->nunsynced, (long long)(util_now_ms() -
		    s->unsynced_since), sync ? " (flushed now)" : "");
	s->nunsynced = 0;
	return (r);
}

/* At a round's end: sends the batch; flushes it once SERVE_SYNC_MS old. */
int
serve_msg_flush(struct serve *s)
{
	return (serve_msg_flush_if(s, 0));
}

/* Sends the batch and flushes every sample journaled to disk. */
int
serve_msg_flush_sync(struct serve *s)
{
	return (serve_msg_flush_if(s, 1));
}

/* Sends a journaled sample again, unless no coordinator listens. */
void
serve_msg_resend(const struct proto_msg *msg, void *arg)
{
	struct serve	*s = arg;

	if (!s->detached)
		serve_msg_send(s, msg);
}
