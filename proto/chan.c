/* Sealed msgpack messages over a nanomsg PAIR socket. */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nanomsg/nn.h>
#include <nanomsg/pair.h>
#include <openssl/rand.h>

#include "proto/chan.h"
#include "proto/log.h"
#include "proto/util.h"

#define CHAN_BIND_TRIES	64
#define CHAN_PORT_LOW	20000
#define CHAN_PORT_SPAN	40000

int
chan_open(struct chan *c, const uint8_t key[PROTO_KEY_LEN], const char *run_id,
    int as_agent, char *err, size_t errlen)
{
	int	max = PROTO_FRAME_MAX, linger = 0;

	memset(c, 0, sizeof *c);
	c->sock = -1;
	if (seal_init(&c->seal, key, run_id, as_agent) != 0) {
		snprintf(err, errlen, "cannot set up sealing");
		return (-1);
	}
	if ((c->sock = nn_socket(AF_SP, NN_PAIR)) < 0) {
		snprintf(err, errlen, "nn_socket: %s", nn_strerror(nn_errno()));
		seal_clear(&c->seal);
		return (-1);
	}
	/* The default is 1 MiB; say it, since larger frames vanish silently. */
	if (nn_setsockopt(c->sock, NN_SOL_SOCKET, NN_RCVMAXSIZE, &max,
	    sizeof max) < 0 ||
	    nn_setsockopt(c->sock, NN_SOL_SOCKET, NN_LINGER, &linger,
	    sizeof linger) < 0) {
		snprintf(err, errlen, "nn_setsockopt: %s",
		    nn_strerror(nn_errno()));
		chan_close(c);
		return (-1);
	}
	return (0);
}

int
chan_bind_random(struct chan *c, const char *addr, char *endpoint, size_t len,
    char *err, size_t errlen)
{
	unsigned char	rnd[2];
	unsigned int	port;
	int		i;

	for (i = 0; i < CHAN_BIND_TRIES; i++) {
		if (RAND_bytes(rnd, sizeof rnd) != 1) {
			snprintf(err, errlen, "RAND_bytes failed");
			return (-1);
		}
		port = CHAN_PORT_LOW + ((unsigned)rnd[0] << 8 | rnd[1]) %
		    CHAN_PORT_SPAN;
		snprintf(endpoint, len, "tcp://%s:%u", addr, port);
		if (nn_bind(c->sock, endpoint) >= 0)
			return (0);
		if (nn_errno() != EADDRINUSE) {
			snprintf(err, errlen, "bind %s: %s", endpoint,
			    nn_strerror(nn_errno()));
			return (-1);
		}
	}
	snprintf(err, errlen, "no free port on %s after %d tries", addr,
	    CHAN_BIND_TRIES);
	return (-1);
}

int
chan_bind_ipc(struct chan *c, const char *path, char *endpoint, size_t len,
    char *err, size_t errlen)
{
	struct sockaddr_un	sun;

	if (strlen(path) >= sizeof sun.sun_path) {
		snprintf(err, errlen, "socket path %s is longer than %zu bytes",
		    path, sizeof sun.sun_path - 1);
		return (-1);
	}
	if (snprintf(endpoint, len, "ipc://%s", path) >= (int)len) {
		snprintf(err, errlen, "endpoint ipc://%s too long", path);
		return (-1);
	}
	if (nn_bind(c->sock, endpoint) < 0) {
		snprintf(err, errlen, "bind %s: %s", endpoint,
		    nn_strerror(nn_errno()));
		return (-1);
	}
	return (0);
}

int
chan_connect(struct chan *c, const char *endpoint, char *err, size_t errlen)
{
	if (nn_connect(c->sock, endpoint) < 0) {
		snprintf(err, errlen, "connect %s: %s", endpoint,
		    nn_strerror(nn_errno()));
		return (-1);
	}
	return (0);
}

int
chan_send(struct chan *c, const struct proto_msg *msg, int timeout_ms,
    char *err, size_t errlen)
{
	uint8_t	*pt;
	size_t	 ptlen;
	int	 r, e;

	if ((e = proto_encode(msg, &pt, &ptlen)) != 0) {
		snprintf(err, errlen, "encode %s: %s",
		    proto_type_name(msg->type), proto_strerror(e));
		return (-1);
	}
	r = chan_send_encoded(c, msg->type, pt, ptlen, timeout_ms, err, errlen);
	free(pt);
	return (r);
}

int
chan_send_encoded(struct chan *c, enum proto_type type, const uint8_t *pt,
    size_t ptlen, int timeout_ms, char *err, size_t errlen)
{
	uint8_t	*frame = NULL;
	size_t	 flen;
	int	 r = -1, e;

	if ((e = seal_frame(&c->seal, pt, ptlen, &frame, &flen)) != 0) {
		snprintf(err, errlen, "seal %s: %s",
		    proto_type_name(type), proto_strerror(e));
		goto out;
	}
	if (nn_setsockopt(c->sock, NN_SOL_SOCKET, NN_SNDTIMEO, &timeout_ms,
	    sizeof timeout_ms) < 0) {
		snprintf(err, errlen, "nn_setsockopt: %s",
		    nn_strerror(nn_errno()));
		goto out;
	}
	if (nn_send(c->sock, frame, flen, 0) < 0) {
		if (nn_errno() == ETIMEDOUT || nn_errno() == EAGAIN)
			snprintf(err, errlen, "send %s: peer not reachable "
			    "within %d ms", proto_type_name(type), timeout_ms);
		else
			snprintf(err, errlen, "send %s: %s",
			    proto_type_name(type), nn_strerror(nn_errno()));
		goto out;
	}
	log_debug("sent %s (%zu bytes, seq %llu)", proto_type_name(type),
	    flen, (unsigned long long)c->seal.send_seq);
	r = 0;
out:
	free(frame);
	return (r);
}

int
chan_recv(struct chan *c, struct proto_msg *msg, int timeout_ms, char *err,
    size_t errlen)
{
	int64_t	 deadline = util_now_ms() + timeout_ms;
	void	*buf = NULL;
	uint8_t	*pt = NULL;
	size_t	 ptlen;
	int	 n, e, left, flags;

	for (;;) {
		left = (int)(deadline - util_now_ms());
		if (left < 0)
			left = 0;
		flags = left == 0 ? NN_DONTWAIT : 0;
		if (nn_setsockopt(c->sock, NN_SOL_SOCKET, NN_RCVTIMEO, &left,
		    sizeof left) < 0) {
			snprintf(err, errlen, "nn_setsockopt: %s",
			    nn_strerror(nn_errno()));
			return (-1);
		}
		n = nn_recv(c->sock, &buf, NN_MSG, flags);
		if (n < 0) {
			e = nn_errno();
			if (e == EAGAIN || e == ETIMEDOUT)
				return (CHAN_TIMEOUT);
			if (e == EINTR)
				continue;
			snprintf(err, errlen, "receive: %s", nn_strerror(e));
			return (-1);
		}
		e = seal_open(&c->seal, buf, (size_t)n, &pt, &ptlen);
		nn_freemsg(buf);
		buf = NULL;
		if (e != 0) {
			c->dropped++;
			c->last_drop = e;
			if (e == PROTO_ERR_VERSION)
				c->peer_version = c->seal.peer_version;
			log_warnx("dropped a %d-byte frame: %s", n,
			    proto_strerror(e));
			continue;
		}
		e = proto_decode(pt, ptlen, msg);
		free(pt);
		pt = NULL;
		if (e != 0) {
			/* Sealed by our peer yet malformed: a bug, say so. */
			snprintf(err, errlen, "undecodable message from "
			    "peer: %s", proto_strerror(e));
			return (-1);
		}
		log_debug("received %s (seq %llu)", proto_type_name(msg->type),
		    (unsigned long long)c->seal.recv_seq);
		return (0);
	}
}

int
chan_fd(struct chan *c)
{
	int	fd = -1;
	size_t	sz = sizeof fd;

	if (nn_getsockopt(c->sock, NN_SOL_SOCKET, NN_RCVFD, &fd, &sz) < 0)
		return (-1);
	return (fd);
}

void
chan_close(struct chan *c)
{
	if (c->sock >= 0)
		nn_close(c->sock);
	c->sock = -1;
	seal_clear(&c->seal);
}
