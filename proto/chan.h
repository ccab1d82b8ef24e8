/*
 * A sealed message channel: one nanomsg PAIR socket carrying frames sealed
 * under the run key (proto/seal.h), msgpack messages inside (proto/proto.h).
 * Frames that fail any check are dropped and logged, never parsed.
 */
#ifndef PROTO_CHAN_H
#define PROTO_CHAN_H

#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"
#include "proto/seal.h"

#define CHAN_TIMEOUT	1	/* chan_recv: nothing arrived in time */

#define CHAN_ERR_LEN	256

struct chan {
	int		sock;		/* nanomsg socket, -1 when closed */
	struct seal	seal;
	uint64_t	dropped;	/* frames refused so far */
	int		last_drop;	/* PROTO_ERR_* of the last refused
					   frame */
	int		peer_version;	/* version byte of a refused frame,
					   or 0 */
};

/* Creates the socket. Returns 0, or -1 with a reason in err. */
int	chan_open(struct chan *c, const uint8_t key[PROTO_KEY_LEN],
	    const char *run_id, int as_agent, char *err, size_t errlen);

/*
 * Binds to a random free TCP port on addr (nanomsg rejects port 0), retrying
 * on EADDRINUSE, and writes the endpoint ("tcp://ADDR:PORT") into endpoint.
 * Returns 0, or -1 with a reason in err.
 */
int	chan_bind_random(struct chan *c, const char *addr, char *endpoint,
	    size_t len, char *err, size_t errlen);

/*
 * Binds to a Unix socket at path ("ipc://PATH"), which must be inside a
 * directory only its owner can enter: whoever can open the socket can
 * pair with it. Writes the endpoint into endpoint. Returns 0, or -1 with a
 * reason in err (a path too long for a socket address among them).
 */
int	chan_bind_ipc(struct chan *c, const char *path, char *endpoint,
	    size_t len, char *err, size_t errlen);

/* Connects to endpoint. Returns 0, or -1 with a reason in err. */
int	chan_connect(struct chan *c, const char *endpoint, char *err,
	    size_t errlen);

/* Seals and sends msg, waiting at most timeout_ms. Returns 0 or -1 (err). */
int	chan_send(struct chan *c, const struct proto_msg *msg, int timeout_ms,
	    char *err, size_t errlen);

/*
 * Seals and sends pt, what proto_encode made of a message of type type,
 * as chan_send would send that message. Returns 0 or -1 (err).
 */
int	chan_send_encoded(struct chan *c, enum proto_type type,
	    const uint8_t *pt, size_t ptlen, int timeout_ms, char *err,
	    size_t errlen);

/*
 * Receives the next genuine message into msg (free with proto_msg_free),
 * waiting at most timeout_ms in all (0: do not wait). Refused frames are
 * dropped and counted. Returns 0, CHAN_TIMEOUT, or -1 with a reason in err.
 */
int	chan_recv(struct chan *c, struct proto_msg *msg, int timeout_ms,
	    char *err, size_t errlen);

/* Returns a file descriptor that polls readable when a frame is waiting. */
int	chan_fd(struct chan *c);

/* Closes the socket and wipes the key; safe to call twice. */
void	chan_close(struct chan *c);

#endif
