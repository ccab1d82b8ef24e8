/*
 * The journal's records. Each is a kind byte, a 4-byte big-endian length
 * and the payload:
 *   'P' the plan's SHA-256 (hex): a resume must bring the same plan
 *   'S' step and attempt (2 x 4 bytes): an attempt started
 *   'C' step, attempt and the benchmark's pid (3 x 4 bytes), then what
 *       identifies that process (proc_ident, since protocol 4): it runs
 *   'R' an encoded SAMPLE message: an attempt ended
 *   'G' an open plan's grant (4 bytes) and whether it is final (1 byte)
 *   'H' the inventory name of the host it is for (since protocol 8),
 *       right after 'P'
 *   'K' a command (4 bytes) whose bench stopped after its first round,
 *       then the words of why (since protocol 8)
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/journal.h"
#include "proto/be.h"
#include "proto/hash.h"
#include "proto/xmalloc.h"

#define JOURNAL_HDR		5	/* kind and length */
#define JOURNAL_MAX_RECORD	PROTO_FRAME_MAX

/*
 * Appends one record and, when sync, flushes it to disk. Returns 0 or -1
 * (errno).
 */
static int
journal_put(int fd, char kind, const void *data, size_t len, int sync)
{
	uint8_t		hdr[JOURNAL_HDR];
	struct iovec	iov[2];
	ssize_t		n;

	hdr[0] = (uint8_t)kind;
	be32_put(hdr + 1, (uint32_t)len);
	iov[0].iov_base = hdr;
	iov[0].iov_len = sizeof hdr;
	iov[1].iov_base = (void *)(uintptr_t)data;
	iov[1].iov_len = len;
	n = writev(fd, iov, 2);
	if (n != (ssize_t)(sizeof hdr + len))
		return (-1);
	return (sync ? fsync(fd) : 0);
}

/* Hashes a plan's encoding: the identity of the plan in the journal. */
static int
journal_plan_sha(const struct proto_plan *plan, char sha[PROTO_SHA_HEX])
{
	struct proto_msg	 msg;
	uint8_t			*buf;
	size_t			 len;
	struct proto_plan	 p = *plan;
	int			 r;

	/* What differs between a run and its resume is not the plan. */
	p.resume_seq = -1;
	p.granted = 0;	/* grows as the run goes: 'G' records */
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_PLAN;
	msg.u.plan = p;
	if (proto_encode(&msg, &buf, &len) != 0)
		return (-1);
	r = hash_buf(buf, len, sha);
	free(buf);
	return (r);
}

/*
 * Takes one journaled sample into pr and hands it to resend when the
 * coordinator does not have it. Returns 0, or -1 when it is no sample.
 */
static int
journal_replay_result(const uint8_t *buf, uint32_t rlen,
    const struct proto_plan *plan, struct journal_progress *pr,
    journal_resend_cb resend, void *arg)
{
	struct proto_msg	msg;

	if (proto_decode(buf, rlen, &msg) != 0 || msg.type != PROTO_SAMPLE) {
		if (msg.type == PROTO_SAMPLE)
			proto_msg_free(&msg);
		return (-1);
	}
	if (msg.u.sample.step < plan->nsteps) {
		pr->ended[msg.u.sample.step] = msg.u.sample.attempt;
		pr->status[msg.u.sample.step] = msg.u.sample.status;
	}
	pr->nsamples++;
	if ((int64_t)msg.u.sample.seq > pr->last_seq)
		pr->last_seq = msg.u.sample.seq;
	if ((int64_t)msg.u.sample.seq > plan->resume_seq && resend != NULL) {
		msg.type = PROTO_SAMPLE;
		resend(&msg, arg);
	}
	proto_msg_free(&msg);
	return (0);
}

/* Takes one 'K' record into pr: a command whose bench stopped. */
static void
journal_replay_stop(const uint8_t *buf, uint32_t rlen,
    const struct proto_plan *plan, struct journal_progress *pr)
{
	uint32_t	cmd = be32_get(buf);
	size_t		n = rlen - 4;

	if (cmd >= plan->ncmds)
		return;
	if (n >= sizeof pr->stop_why[cmd])
		n = sizeof pr->stop_why[cmd] - 1;
	pr->stopped[cmd] = 1;
	memcpy(pr->stop_why[cmd], buf + 4, n);
	pr->stop_why[cmd][n] = '\0';
}

/*
 * Reads the journal on fd back into pr, record by record, until its end or
 * a record cut short. Returns the length of the records read, or -1 when
 * the journal holds another plan than plan_sha.
 */
static off_t
journal_replay(int fd, const struct proto_plan *plan, const char *plan_sha,
    struct journal_progress *pr, int *have_plan, journal_resend_cb resend,
    void *arg)
{
	uint8_t		 hdr[JOURNAL_HDR], *buf;
	uint32_t	 step, rlen;
	off_t		 good = 0;

	buf = xmalloc(JOURNAL_MAX_RECORD);
	for (;;) {
		if (pread(fd, hdr, sizeof hdr, good) != (ssize_t)sizeof hdr)
			break;
		rlen = be32_get(hdr + 1);
		if (rlen > JOURNAL_MAX_RECORD || pread(fd, buf, rlen,
		    good + JOURNAL_HDR) != (ssize_t)rlen)
			break;
		if (hdr[0] == 'P') {
			if (rlen != PROTO_SHA_HEX - 1 ||
			    memcmp(buf, plan_sha, rlen) != 0) {
				good = -1;
				break;
			}
			*have_plan = 1;
		} else if (hdr[0] == 'S' && rlen == 8) {
			step = be32_get(buf);
			if (step < plan->nsteps)
				pr->started[step] = be32_get(buf + 4);
		} else if (hdr[0] == 'C' && rlen >= 12 &&
		    rlen < 12 + PROC_IDENT_LEN) {
			step = be32_get(buf);
			if (step < plan->nsteps) {
				pr->pid[step] = be32_get(buf + 8);
				/* Without one (an older journal): unknown. */
				memcpy(pr->ident[step], buf + 12, rlen - 12);
				pr->ident[step][rlen - 12] = '\0';
			}
		} else if (hdr[0] == 'G' && rlen == 5) {
			/* Only grows; a final one fixes the end. */
			if (be32_get(buf) > pr->granted &&
			    be32_get(buf) <= plan->nsteps)
				pr->granted = be32_get(buf);
			if (buf[4] == 1)
				pr->final = 1;
		} else if (hdr[0] == 'H') {
			/* journal_host_of read it */
		} else if (hdr[0] == 'K' && rlen >= 4) {
			journal_replay_stop(buf, rlen, plan, pr);
		} else if (hdr[0] == 'R') {
			if (journal_replay_result(buf, rlen, plan, pr, resend,
			    arg) != 0)
				break;
		} else
			break;
		good += JOURNAL_HDR + (off_t)rlen;
	}
	free(buf);
	return (good);
}

/*
 * Reads the host name of the journal on fd (its 'H' record, right after
 * the plan's) into host; "" when it has none (new, or older).
 */
static void
journal_host_of(int fd, char *host, size_t hlen)
{
	uint8_t		hdr[JOURNAL_HDR];
	uint32_t	rlen;
	off_t		at = JOURNAL_HDR + PROTO_SHA_HEX - 1;

	host[0] = '\0';
	if (pread(fd, hdr, sizeof hdr, at) != (ssize_t)sizeof hdr ||
	    hdr[0] != 'H' || (rlen = be32_get(hdr + 1)) == 0 || rlen >= hlen ||
	    pread(fd, host, rlen, at + JOURNAL_HDR) != (ssize_t)rlen) {
		host[0] = '\0';
		return;
	}
	host[rlen] = '\0';
}

int
journal_open(const char *rundir, const char *run_id, const char *host,
    const struct proto_plan *plan, struct journal_progress *pr,
    journal_resend_cb resend, void *arg, char *why, size_t len)
{
	char	was[64];
	char	path[PATH_MAX], sha[PROTO_SHA_HEX];
	off_t	good;
	int	fd, have_plan = 0;

	memset(pr, 0, sizeof *pr);
	pr->started = xcalloc(plan->nsteps + 1, sizeof *pr->started);
	pr->pid = xcalloc(plan->nsteps + 1, sizeof *pr->pid);
	pr->ident = xcalloc(plan->nsteps + 1, sizeof *pr->ident);
	pr->ended = xcalloc(plan->nsteps + 1, sizeof *pr->ended);
	pr->status = xcalloc(plan->nsteps + 1, sizeof *pr->status);
	pr->stopped = xcalloc(plan->ncmds + 1, sizeof *pr->stopped);
	pr->stop_why = xcalloc(plan->ncmds + 1, sizeof *pr->stop_why);
	pr->last_seq = -1;
	if (journal_plan_sha(plan, sha) != 0) {
		snprintf(why, len, "cannot encode the plan");
		return (-1);
	}
	snprintf(path, sizeof path, "%s/journal", rundir);
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd == -1) {
		snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
		return (-1);
	}
	/* Another host name's journal is never taken up, nor resent. */
	journal_host_of(fd, was, sizeof was);
	if (was[0] != '\0' && host[0] != '\0' && strcmp(was, host) != 0) {
		snprintf(why, len, "%s is the journal of host %s of run %s, "
		    "not of host %s: the two are the same machine and workdir; "
		    "refused", path, was, run_id, host);
		goto fail;
	}
	good = journal_replay(fd, plan, sha, pr, &have_plan, resend, arg);
	if (good == -1) {
		snprintf(why, len, "%s holds another plan for run %s", path,
		    run_id);
		goto fail;
	}
	if (ftruncate(fd, good) == -1) {
		snprintf(why, len, "cannot truncate %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	if (!have_plan && (journal_put(fd, 'P', sha, PROTO_SHA_HEX - 1,
	    host[0] == '\0') != 0 || (host[0] != '\0' && journal_put(fd, 'H',
	    host, strlen(host), 1) != 0))) {
		snprintf(why, len, "cannot write %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	pr->resumed = good > 0;
	return (fd);
fail:
	close(fd);
	return (-1);
}

int
journal_same_plan(const char *rundir, const struct proto_plan *plan)
{
	uint8_t	hdr[JOURNAL_HDR];
	char	path[PATH_MAX], sha[PROTO_SHA_HEX], was[PROTO_SHA_HEX];
	int	fd, r = 1;

	snprintf(path, sizeof path, "%s/journal", rundir);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return (1);	/* none yet: any plan starts it */
	/* Its first record is the plan's, written before any other. */
	if (pread(fd, hdr, sizeof hdr, 0) == (ssize_t)sizeof hdr &&
	    hdr[0] == 'P' && be32_get(hdr + 1) == PROTO_SHA_HEX - 1 &&
	    pread(fd, was, PROTO_SHA_HEX - 1, JOURNAL_HDR) ==
	    PROTO_SHA_HEX - 1 && journal_plan_sha(plan, sha) == 0)
		r = memcmp(was, sha, PROTO_SHA_HEX - 1) == 0;
	close(fd);
	return (r);
}

void
journal_progress_free(struct journal_progress *pr)
{
	if (pr == NULL)
		return;
	free(pr->ident);
	free(pr->pid);
	free(pr->started);
	free(pr->ended);
	free(pr->status);
	free(pr->stopped);
	free(pr->stop_why);
	memset(pr, 0, sizeof *pr);
}

int
journal_step_done(const struct proto_plan *plan,
    const struct journal_progress *pr, uint32_t i)
{
	return (pr->ended[i] > 0 && pr->ended[i] >= pr->started[i] &&
	    (pr->status[i] != PROTO_ST_SIGNAL || pr->ended[i] > plan->retries));
}

int
journal_granted(int fd, uint32_t granted, int final)
{
	uint8_t	rec[5];

	be32_put(rec, granted);
	rec[4] = final ? 1 : 0;
	return (journal_put(fd, 'G', rec, sizeof rec, 1));
}

int
journal_stopped(int fd, uint32_t cmd, const char *why)
{
	uint8_t	rec[4 + JOURNAL_STOP_WHY];
	size_t	n = strlen(why);

	if (n >= JOURNAL_STOP_WHY)
		n = JOURNAL_STOP_WHY - 1;
	be32_put(rec, cmd);
	memcpy(rec + 4, why, n);
	return (journal_put(fd, 'K', rec, 4 + n, 1));
}

int
journal_started(int fd, uint32_t step, uint32_t attempt)
{
	uint8_t	rec[8];

	be32_put(rec, step);
	be32_put(rec + 4, attempt);
	return (journal_put(fd, 'S', rec, sizeof rec, 0));
}

int
journal_running(int fd, uint32_t step, uint32_t attempt, uint32_t pid,
    const char *ident)
{
	uint8_t	rec[12 + PROC_IDENT_LEN];
	size_t	len = 12, n = strlen(ident);

	be32_put(rec, step);
	be32_put(rec + 4, attempt);
	be32_put(rec + 8, pid);
	if (n >= PROC_IDENT_LEN)
		n = PROC_IDENT_LEN - 1;
	memcpy(rec + 12, ident, n);
	len += n;
	return (journal_put(fd, 'C', rec, len, 0));
}

int
journal_result(int fd, const uint8_t *buf, size_t len)
{
	return (journal_put(fd, 'R', buf, len, 0));
}

int
journal_sync(int fd)
{
	return (fsync(fd));
}

long
journal_count(const char *workdir, const char *run_id)
{
	uint8_t	hdr[JOURNAL_HDR];
	char	path[PATH_MAX];
	off_t	off = 0;
	long	n = 0;
	int	fd;

	snprintf(path, sizeof path, "%s/runs/%s/journal", workdir, run_id);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	while (pread(fd, hdr, sizeof hdr, off) == (ssize_t)sizeof hdr) {
		if (hdr[0] == 'R')
			n++;
		off += JOURNAL_HDR + (off_t)be32_get(hdr + 1);
	}
	close(fd);
	return (n);
}
