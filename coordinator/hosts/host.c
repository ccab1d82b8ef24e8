/* The session with one host's agent, common to every backend. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/tty.h"
#include "proto/log.h"
#include "proto/seal.h"
#include "proto/version.h"
#include "proto/xmalloc.h"

#define HOST_HELLO_TIMEOUT	20000	/* ms */
#define HOST_SEND_TIMEOUT	20000	/* ms */
#define HOST_BYE_TIMEOUT	1000	/* ms to send BYE */
#define HOST_BYE_WAIT		2000	/* ms for the agent to go after BYE */
#define HOST_REPLY_TIMEOUT	120000	/* ms for HAVE: the agent hashes its
					   cache */
#define HOST_TICK		1000	/* ms between liveness checks in a
					   run */
#define HOST_UNEXPECTED_MAX	16	/* messages of no use in a run */

/* Sets h->error from a format. */
static void
host_fail(struct host *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void
host_fail(struct host *h, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(h->error, sizeof h->error, fmt, ap);
	va_end(ap);
	/* An agent's ERROR text, a remote's stderr: shown on terminals. */
	tty_clean(h->error, 1);
	h->status = HOST_FAILED;
	h->retryable = 0;
}

void
host_refuse(struct host *h, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(h->error, sizeof h->error, fmt, ap);
	va_end(ap);
	tty_clean(h->error, 0);
	h->status = HOST_FAILED;
	h->retryable = 0;
}

/* Sends msg or fails the host. */
static int
host_send(struct host *h, const struct proto_msg *msg)
{
	char	err[CHAN_ERR_LEN];

	if (chan_send(&h->chan, msg, HOST_SEND_TIMEOUT, err, sizeof err) != 0) {
		host_fail(h, "%s", err);
		return (-1);
	}
	return (0);
}

/*
 * Receives the next message within timeout_ms, checking that the agent
 * still lives. An ERROR message fails the host. Returns 0 or -1.
 */
static int
host_recv(struct host *h, struct proto_msg *msg, int timeout_ms,
    const char *what)
{
	char	err[CHAN_ERR_LEN];
	int	waited = 0, r;

	for (;;) {
		r = chan_recv(&h->chan, msg, HOST_TICK, err, sizeof err);
		if (r == -1) {
			host_fail(h, "%s", err);
			return (-1);
		}
		if (r == 0)
			break;
		waited += HOST_TICK;
		if (h->chan.peer_version != 0) {
			host_fail(h, "the agent speaks protocol %d, this orch "
			    "%d: run orch deploy", h->chan.peer_version,
			    PROTO_VERSION);
			return (-1);
		}
		if (!h->ops->alive(h)) {
			host_fail(h, "the agent exited while waiting for %s "
			    "(its log: %s)", what, h->logpath);
			return (-1);
		}
		if (waited >= timeout_ms) {
			host_fail(h, "no %s from the agent within %d s", what,
			    timeout_ms / 1000);
			return (-1);
		}
	}
	if (msg->type == PROTO_ERROR) {
		host_fail(h, "agent: %s", msg->u.error.msg);
		proto_msg_free(msg);
		return (-1);
	}
	return (0);
}

int
host_open(struct host *h, const char *run_id)
{
	struct proto_msg	msg;
	uint8_t			key[PROTO_KEY_LEN];
	char			line[256], endpoint[256], err[HOST_ERR_LEN];
	int			r = -1;

	h->status = HOST_OK;
	h->error[0] = '\0';
	snprintf(h->run_id, sizeof h->run_id, "%s", run_id);
	if (seal_keygen(key) != 0) {
		host_fail(h, "cannot make a session key (RAND_bytes failed)");
		return (-1);
	}
	if (seal_keyline_format(key, run_id, line, sizeof line) != 0) {
		host_fail(h, "bad run id '%s'", run_id);
		goto out;
	}
	if (h->ops->start(h, line, endpoint, sizeof endpoint, err,
	    sizeof err) != 0) {
		host_fail(h, "%s", err);
		goto out;
	}
	if (chan_open(&h->chan, key, run_id, 0, err, sizeof err) != 0 ||
	    chan_connect(&h->chan, endpoint, err, sizeof err) != 0) {
		host_fail(h, "%s", err);
		goto out;
	}
	h->connected = 1;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_HELLO;
	msg.u.hello.proto = PROTO_VERSION;
	snprintf(msg.u.hello.version, sizeof msg.u.hello.version, "%s",
	    ORCH_VERSION);
	snprintf(msg.u.hello.run_id, sizeof msg.u.hello.run_id, "%s", run_id);
	msg.u.hello.has_host = 1;	/* its agent's lock and journal */
	snprintf(msg.u.hello.host, sizeof msg.u.hello.host, "%s", h->name);
	if (host_send(h, &msg) != 0)
		goto out;
	if (host_recv(h, &msg, HOST_HELLO_TIMEOUT, "hello") != 0)
		goto out;
	if (msg.type != PROTO_HELLO) {
		host_fail(h, "expected hello from the agent, got %s",
		    proto_type_name(msg.type));
		proto_msg_free(&msg);
		goto out;
	}
	if (msg.u.hello.proto != PROTO_VERSION || !msg.u.hello.has_facts) {
		host_fail(h, "the agent (orch-agent %s) speaks protocol %u, "
		    "this orch %d: run orch deploy", msg.u.hello.version,
		    msg.u.hello.proto, PROTO_VERSION);
		proto_msg_free(&msg);
		goto out;
	}
	snprintf(h->agent_version, sizeof h->agent_version, "%s",
	    msg.u.hello.version);
	h->facts = msg.u.hello.facts;
	proto_msg_free(&msg);
	/* The agent's words, for a terminal: made safe. */
	snprintf(line, sizeof line, "agent %s, %s/%s, %s", h->agent_version,
	    h->facts.os, h->facts.arch, h->facts.cpu_model);
	log_debug("%s: %s, %u cores", h->name, tty_clean(line, 0),
	    h->facts.cores);
	r = 0;
out:
	OPENSSL_cleanse(key, sizeof key);
	OPENSSL_cleanse(line, sizeof line);
	return (r);
}

int
host_sync(struct host *h, size_t n, char *const *paths,
    const char (*shas)[PROTO_SHA_HEX], const int *executable, int *fresh,
    uint64_t *pushed)
{
	struct proto_msg	 msg;
	char			 err[HOST_ERR_LEN];
	int			*have = NULL, r = -1;
	size_t			 i, j;
	FILE			*f;

	*pushed = 0;
	for (j = 0; j < n; j++)
		fresh[j] = 0;
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_QUERY;
	msg.u.hashes.n = n;
	msg.u.hashes.sha = (char (*)[PROTO_SHA_HEX])(uintptr_t)shas;
	if (host_send(h, &msg) != 0)
		return (-1);
	if (host_recv(h, &msg, HOST_REPLY_TIMEOUT, "cache listing") != 0)
		return (-1);
	if (msg.type != PROTO_HAVE) {
		host_fail(h, "expected have from the agent, got %s",
		    proto_type_name(msg.type));
		goto out;
	}
	have = xcalloc(n + 1, sizeof *have);
	for (i = 0; i < msg.u.hashes.n; i++) {
		for (j = 0; j < n; j++) {
			if (strcmp(msg.u.hashes.sha[i], shas[j]) == 0)
				have[j] = 1;
		}
	}
	for (j = 0; j < n; j++) {
		if (have[j])
			continue;
		/* A file listed twice travels once. */
		for (i = 0; i < j; i++) {
			if (strcmp(shas[i], shas[j]) == 0)
				break;
		}
		if (i < j) {
			fresh[j] = 1;
			continue;
		}
		fresh[j] = 1;
		if (h->ops->push(h, paths[j], shas[j], executable[j], err,
		    sizeof err) != 0) {
			host_fail(h, "push %s: %s", paths[j], err);
			goto out;
		}
		if ((f = fopen(paths[j], "rb")) != NULL) {
			if (fseeko(f, 0, SEEK_END) == 0)
				*pushed += (uint64_t)ftello(f);
			fclose(f);
		}
		h->npushed++;
	}
	r = 0;
out:
	free(have);
	proto_msg_free(&msg);
	return (r);
}

int
host_run(struct host *h, const struct proto_plan *plan, host_sample_cb cb,
    host_state_cb scb, void *arg, atomic_int *stop)
{
	struct proto_msg	msg, ack;
	char			err[CHAN_ERR_LEN];
	int			r, unexpected = 0;

	h->errcode[0] = '\0';
	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_PLAN;
	msg.u.plan = *plan;
	if (host_send(h, &msg) != 0) {
		h->retryable = 1;
		return (-1);
	}
	for (;;) {
		if (stop != NULL && *stop) {
			host_fail(h, "interrupted");
			return (-1);
		}
		r = chan_recv(&h->chan, &msg, HOST_TICK, err, sizeof err);
		if (r == -1) {
			host_fail(h, "%s", err);
			h->retryable = 1;
			return (-1);
		}
		if (r == CHAN_TIMEOUT) {
			if (!h->ops->alive(h)) {
				host_fail(h, "the agent exited during the run "
				    "(its log: %s)", h->logpath);
				h->retryable = 1;
				return (-1);
			}
			continue;
		}
		switch (msg.type) {
		case PROTO_SAMPLE:
			r = cb(h, &msg.u.sample, arg);
			memset(&ack, 0, sizeof ack);
			ack.type = PROTO_ACK;
			ack.u.ack.seq = msg.u.sample.seq;
			proto_msg_free(&msg);
			if (r != 0) {
				/* Refused (host_refuse), or not stored. */
				if (h->status != HOST_FAILED)
					host_fail(h, "cannot store a sample: "
					    "stopping");
				return (-1);
			}
			if (host_send(h, &ack) != 0) {
				h->retryable = 1;
				return (-1);
			}
			break;
		case PROTO_DONE:
			if (!msg.u.done.ok) {
				host_fail(h, "%s", msg.u.done.reason);
				proto_msg_free(&msg);
				return (-1);
			}
			proto_msg_free(&msg);
			return (0);
		case PROTO_ERROR:
			snprintf(h->errcode, sizeof h->errcode, "%s",
			    msg.u.error.code);
			host_fail(h, "agent: %s", msg.u.error.msg);
			proto_msg_free(&msg);
			return (-1);
		case PROTO_PROGS:
			if (h->progs_cb != NULL)
				h->progs_cb(h, &msg.u.progs, arg);
			proto_msg_free(&msg);
			break;
		case PROTO_STATUS:
			if (scb != NULL)
				scb(h, &msg.u.state, arg);
			proto_msg_free(&msg);
			break;
		default:
			log_warnx("%s: unexpected %s during the run", h->name,
			    proto_type_name(msg.type));
			proto_msg_free(&msg);
			if (++unexpected > HOST_UNEXPECTED_MAX)
				host_refuse(h, "host %s sent more than %d "
				    "messages of no use during a run", h->name,
				    HOST_UNEXPECTED_MAX);
			break;
		}
		/* A callback refused what the agent sent (host_refuse). */
		if (h->status == HOST_FAILED)
			return (-1);
	}
}

int
host_grant(struct host *h, uint32_t granted, int final)
{
	struct proto_msg	msg;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_GRANT;
	msg.u.grant.granted = granted;
	msg.u.grant.final = final ? 1 : 0;
	log_debug("%s: grant %u%s", h->name, granted, final ? " final" : "");
	if (host_send(h, &msg) != 0) {
		h->retryable = 1;	/* the agent lost, as in host_run */
		return (-1);
	}
	return (0);
}

void
host_close(struct host *h)
{
	struct proto_msg	msg;
	struct timespec		ts = { 0, 1000 * 1000 };
	char			err[CHAN_ERR_LEN];
	int			i, was;

	/*
	 * Not connected from here on: the agent going after its BYE is no
	 * news. Detached, no BYE: the agent carries on as if we were lost.
	 */
	was = h->connected;
	h->connected = 0;
	if (was && !h->detach) {
		memset(&msg, 0, sizeof msg);
		msg.type = PROTO_BYE;
		if (chan_send(&h->chan, &msg, HOST_BYE_TIMEOUT, err,
		    sizeof err) != 0)
			log_debug("%s: bye: %s", h->name, err);
		else {
			/*
			 * Let the agent take its BYE and go before its stdin
			 * closes: a closed stdin alone means "carry on". Looked
			 * at every millisecond: it goes in one or two, and a
			 * coarser step was most of a short run's end.
			 */
			for (i = 0; i < HOST_BYE_WAIT && h->ops != NULL &&
			    h->ops->alive(h); i++)
				nanosleep(&ts, NULL);
		}
	}
	h->connected = 0;
	chan_close(&h->chan);
	if (h->ops != NULL && h->ops->stop != NULL)
		h->ops->stop(h);
}

void
host_each(void *items, size_t n, size_t size, void *(*fn)(void *))
{
	pthread_t	*t;
	char		*base = items;
	int		*started;
	size_t		 i;

	if (n == 0)
		return;
	t = xcalloc(n, sizeof *t);
	started = xcalloc(n, sizeof *started);
	for (i = 0; i < n; i++)
		started[i] = pthread_create(&t[i], NULL, fn,
		    base + i * size) == 0;
	for (i = 0; i < n; i++) {
		if (started[i])
			pthread_join(t[i], NULL);
		else
			fn(base + i * size);
	}
	free(started);
	free(t);
}
