/*
 * hostile: plays a coordinator and three attackers against a real agent.
 * Starts `orch-agent serve` with a fresh key, then sends to its port, in
 * turn: random bytes, a HELLO sealed under another key, the genuine HELLO,
 * a replay of that very frame, a frame of another run, and finally a
 * genuine QUERY — which the agent must still answer. Prints one line per
 * step and exits 0 when the agent dropped every forged frame and served
 * the genuine ones.
 *
 * With --squatter, another local user (uid/gid 65534; the tool must run as
 * root) connects to the agent's endpoint first and completes the SP
 * handshake, as any user of a lab host could; then the genuine coordinator
 * must still be served.
 *
 * With --connect, it only tries to connect to ENDPOINT as it is (run it
 * as the user to try) and exits 0 when it got in, 1 when not.
 *
 *   hostile [--squatter] AGENT WORKDIR
 *   hostile --connect ENDPOINT
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>
#include <grp.h>
#include <poll.h>

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nanomsg/nn.h>
#include <nanomsg/pair.h>

#include "proto/chan.h"
#include "proto/proto.h"
#include "proto/seal.h"
#include "proto/version.h"

extern char **environ;

static int	failures;

static void
check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

/* Seals msg under s into a frame (caller frees). */
static uint8_t *
seal_msg(struct seal *s, const struct proto_msg *msg, size_t *len)
{
	uint8_t	*pt, *frame;
	size_t	 ptlen;

	if (proto_encode(msg, &pt, &ptlen) != 0 ||
	    seal_frame(s, pt, ptlen, &frame, len) != 0) {
		fprintf(stderr, "hostile: cannot seal\n");
		exit(2);
	}
	free(pt);
	return (frame);
}

/* Receives one frame within ms and opens it with s; returns 0 or -1. */
static int
recv_msg(int sock, struct seal *s, struct proto_msg *msg, int ms)
{
	void	*buf;
	uint8_t	*pt;
	size_t	 ptlen;
	int	 n, r;

	nn_setsockopt(sock, NN_SOL_SOCKET, NN_RCVTIMEO, &ms, sizeof ms);
	if ((n = nn_recv(sock, &buf, NN_MSG, 0)) < 0)
		return (-1);
	r = seal_open(s, buf, (size_t)n, &pt, &ptlen);
	nn_freemsg(buf);
	if (r != 0)
		return (-1);
	r = proto_decode(pt, ptlen, msg);
	free(pt);
	return (r);
}

/*
 * Connects to endpoint (tcp://ADDR:PORT or ipc://PATH) with a plain socket
 * and does the SP handshake of a PAIR peer. Returns the connected fd once
 * the agent's own header came back (the agent holds the pipe then), or -1
 * with the reason on stderr.
 */
static int
squat_connect(const char *endpoint)
{
	static const unsigned char hdr[8] = { 0, 'S', 'P', 0, 0, 0x10, 0, 0 };
	struct sockaddr_storage	ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_un	*sun = (struct sockaddr_un *)&ss;
	struct pollfd		 pfd;
	unsigned char		 got[8];
	socklen_t		 sl;
	char			 addr[128];
	size_t			 have = 0;
	ssize_t			 n;
	int			 fd, port;

	memset(&ss, 0, sizeof ss);
	if (sscanf(endpoint, "tcp://%127[^:]:%d", addr, &port) == 2) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
			return (-1);
		sl = sizeof *sin;
	} else if (strncmp(endpoint, "ipc://", 6) == 0 &&
	    strlen(endpoint + 6) < sizeof sun->sun_path) {
		sun->sun_family = AF_UNIX;
		memcpy(sun->sun_path, endpoint + 6, strlen(endpoint + 6) + 1);
		sl = sizeof *sun;
	} else {
		fprintf(stderr, "squatter: cannot parse %s\n", endpoint);
		return (-1);
	}
	if ((fd = socket(ss.ss_family, SOCK_STREAM, 0)) == -1)
		return (-1);
	if (connect(fd, (struct sockaddr *)&ss, sl) == -1) {
		fprintf(stderr, "squatter: connect %s: %s\n", endpoint,
		    strerror(errno));
		close(fd);
		return (-1);
	}
	if (write(fd, hdr, sizeof hdr) != (ssize_t)sizeof hdr) {
		close(fd);
		return (-1);
	}
	while (have < sizeof got) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 5000) != 1 ||
		    (n = read(fd, got + have, sizeof got - have)) <= 0) {
			fprintf(stderr, "squatter: no SP header from %s within "
			    "5 s\n", endpoint);
			close(fd);
			return (-1);
		}
		have += (size_t)n;
	}
	return (fd);
}

/*
 * Starts a squatter as another user: it connects to endpoint and holds the
 * connection until killed. Returns its pid; *held is 1 when it got in.
 */
static pid_t
squat(const char *endpoint, int *held)
{
	pid_t	pid;
	int	p[2], fd;
	char	c = 0;

	*held = 0;
	if (pipe(p) == -1 || (pid = fork()) == -1)
		exit(2);
	if (pid == 0) {
		close(p[0]);
		if (setgroups(0, NULL) == -1 || setgid(65534) == -1 ||
		    setuid(65534) == -1) {
			fprintf(stderr, "squatter: cannot become uid 65534 "
			    "(run as root): %s\n", strerror(errno));
			_exit(2);
		}
		if ((fd = squat_connect(endpoint)) == -1)
			_exit(1);
		c = 1;
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) == 1 && c == 1)
		*held = 1;
	close(p[0]);
	return (pid);
}

int
main(int argc, char **argv)
{
	posix_spawn_file_actions_t	 fa;
	struct seal			 me, other, foreign;
	struct proto_msg		 hello, reply, query;
	uint8_t				 key[PROTO_KEY_LEN], key2[PROTO_KEY_LEN];
	uint8_t				*frame, *frame2, junk[300];
	char				 line[256], wd[4096], ep[128];
	char				*av[5];
	size_t				 len, len2, i;
	FILE				*out;
	pid_t				 pid;
	int				 in[2], o[2], sock, tmo = 5000, st;
	int				 squatter = 0, held;
	pid_t				 spid = -1;
	char				 sha[PROTO_SHA_HEX];

	if (argc == 3 && strcmp(argv[1], "--connect") == 0) {
		if ((sock = squat_connect(argv[2])) == -1)
			return (1);
		printf("connected to %s\n", argv[2]);
		close(sock);
		return (0);
	}
	if (argc == 4 && strcmp(argv[1], "--squatter") == 0) {
		squatter = 1;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: hostile [--squatter] AGENT WORKDIR\n");
		return (2);
	}
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (seal_keygen(key) != 0 || seal_keygen(key2) != 0 ||
	    pipe(in) == -1 || pipe(o) == -1)
		return (2);
	snprintf(wd, sizeof wd, "--workdir=%s", argv[2]);
	av[0] = argv[1];
	av[1] = (char *)"serve";
	av[2] = wd;
	av[3] = (char *)"-v";
	av[4] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, o[1], 1);
	posix_spawn_file_actions_addclose(&fa, in[1]);
	posix_spawn_file_actions_addclose(&fa, o[0]);
	if (posix_spawn(&pid, argv[1], &fa, NULL, av, environ) != 0)
		return (2);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(o[1]);
	seal_keyline_format(key, "hostile-run", line, sizeof line);
	if (write(in[1], line, strlen(line)) != (ssize_t)strlen(line))
		return (2);
	out = fdopen(o[0], "r");
	if (out == NULL || fgets(line, sizeof line, out) == NULL ||
	    sscanf(line, "ORCH-AGENT %*d %127s", ep) != 1) {
		fprintf(stderr, "hostile: no endpoint\n");
		return (2);
	}
	if (squatter) {
		spid = squat(ep, &held);
		printf("squatter (uid 65534) %s %s\n", held ? "holds" :
		    "could not connect to", ep);
	}
	sock = nn_socket(AF_SP, NN_PAIR);
	nn_setsockopt(sock, NN_SOL_SOCKET, NN_SNDTIMEO, &tmo, sizeof tmo);
	if (sock < 0 || nn_connect(sock, ep) < 0)
		return (2);
	seal_init(&me, key, "hostile-run", 0);
	if (squatter) {
		memset(&hello, 0, sizeof hello);
		hello.type = PROTO_HELLO;
		hello.u.hello.proto = PROTO_VERSION;
		snprintf(hello.u.hello.version, sizeof hello.u.hello.version,
		    "%s", ORCH_VERSION);
		snprintf(hello.u.hello.run_id, sizeof hello.u.hello.run_id,
		    "hostile-run");
		frame = seal_msg(&me, &hello, &len);
		nn_send(sock, frame, len, 0);
		free(frame);
		memset(&reply, 0, sizeof reply);
		st = recv_msg(sock, &me, &reply, 10000);
		check(st == 0 && reply.type == PROTO_HELLO,
		    "the coordinator is served despite the squatter");
		if (st == 0)
			proto_msg_free(&reply);
		kill(spid, SIGKILL);
		waitpid(spid, NULL, 0);
		goto done;
	}
	seal_init(&other, key2, "hostile-run", 0);
	seal_init(&foreign, key, "another-run", 0);

	/* 1: random bytes. */
	for (i = 0; i < sizeof junk; i++)
		junk[i] = (uint8_t)(rand() & 0xff);
	nn_send(sock, junk, sizeof junk, 0);

	/* 2: a HELLO sealed under another key. */
	memset(&hello, 0, sizeof hello);
	hello.type = PROTO_HELLO;
	hello.u.hello.proto = PROTO_VERSION;
	snprintf(hello.u.hello.version, sizeof hello.u.hello.version, "%s",
	    ORCH_VERSION);
	snprintf(hello.u.hello.run_id, sizeof hello.u.hello.run_id,
	    "hostile-run");
	frame = seal_msg(&other, &hello, &len);
	nn_send(sock, frame, len, 0);
	free(frame);
	/* 3: a frame of another run. */
	frame = seal_msg(&foreign, &hello, &len);
	nn_send(sock, frame, len, 0);
	free(frame);
	check(recv_msg(sock, &me, &reply, 1000) == -1,
	    "nothing answers random bytes, a foreign key or another run");

	/* 4: the genuine HELLO, answered. */
	frame = seal_msg(&me, &hello, &len);
	nn_send(sock, frame, len, 0);
	memset(&reply, 0, sizeof reply);
	st = recv_msg(sock, &me, &reply, 10000);
	check(st == 0 && reply.type == PROTO_HELLO && reply.u.hello.has_facts,
	    "the genuine hello is answered with facts");
	if (st == 0)
		proto_msg_free(&reply);

	/* 5: the same frame again: a replay, dropped. */
	nn_send(sock, frame, len, 0);
	check(recv_msg(sock, &me, &reply, 1000) == -1, "a replayed frame is "
	    "dropped");

	/* 6: a genuine QUERY still works. */
	memset(&query, 0, sizeof query);
	query.type = PROTO_QUERY;
	memset(sha, 'a', 64);
	sha[64] = '\0';
	query.u.hashes.n = 1;
	query.u.hashes.sha = (char (*)[PROTO_SHA_HEX])sha;
	frame2 = seal_msg(&me, &query, &len2);
	nn_send(sock, frame2, len2, 0);
	st = recv_msg(sock, &me, &reply, 10000);
	check(st == 0 && reply.type == PROTO_HAVE && reply.u.hashes.n == 0,
	    "the agent still serves its coordinator");
	if (st == 0)
		proto_msg_free(&reply);
	free(frame);
	free(frame2);

done:
	close(in[1]);		/* the lifeline: the agent exits */
	nn_close(sock);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st), "the agent exited when its stdin closed");
	printf("hostile: %d failure%s\n", failures, failures == 1 ? "" : "s");
	return (failures ? 1 : 0);
}
