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
 * With --agent MODE it is the other side: a hostile agent that a real
 * coordinator starts (ORCH_AGENT, through a script that adds the mode;
 * the words after MODE, "serve --workdir=...", are ignored). It speaks
 * the sealed protocol as an agent does, claims every file, and runs no
 * benchmark: it answers each step with a made-up sample, and with MODE:
 *   forged        a sample of round + 1000 and step 2^32-1 after the first
 *   esc           a note and a failed sample's stderr holding ESC/OSC
 *   grant=N       N waiting-grants at each end of its grant (auto rounds)
 *   status=N      N waiting-load STATUS before the first sample
 *   progs=N       N PROGS, each naming the plan's first host program at
 *                 another path
 *   dup=N         its first sample again N times
 *
 *   hostile [--squatter] AGENT WORKDIR
 *   hostile --connect ENDPOINT
 *   hostile --agent MODE [serve ...]
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/utsname.h>
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

/* The hostile agent's session: its channel and what it was granted. */
struct evil {
	struct chan		 ch;
	struct proto_plan	*plan;
	struct proto_msg	 pmsg;		/* holds the plan */
	uint32_t		 granted;
	int			 final;
	uint32_t		 seq;
	int			 bye;
};

/* Sends msg; a failure ends the hostile agent. */
static void
evil_send(struct evil *e, const struct proto_msg *msg)
{
	char	err[256];

	if (chan_send(&e->ch, msg, 5000, err, sizeof err) != 0) {
		fprintf(stderr, "hostile agent: send: %s\n", err);
		exit(1);
	}
}

/* Exits when the coordinator's lifeline (stdin) has closed. */
static void
evil_lifeline(void)
{
	struct pollfd	pfd = { 0, POLLIN, 0 };
	char		c;

	if (poll(&pfd, 1, 0) == 1 && read(0, &c, 1) <= 0)
		exit(0);
}

/*
 * Receives one message within ms and handles what needs no mode: HELLO,
 * QUERY (every file is "held"), PLAN (kept), GRANT, ACK, BYE. Returns its
 * type, or 0 when none came.
 */
static int
evil_recv(struct evil *e, int ms)
{
	struct proto_msg	msg, out;
	struct utsname		un;
	char			err[256];
	int			r, type;

	evil_lifeline();
	r = chan_recv(&e->ch, &msg, ms, err, sizeof err);
	if (r == -1) {
		fprintf(stderr, "hostile agent: recv: %s\n", err);
		exit(1);
	}
	if (r != 0)
		return (0);
	type = msg.type;
	memset(&out, 0, sizeof out);
	switch (msg.type) {
	case PROTO_HELLO:
		out.type = PROTO_HELLO;
		out.u.hello.proto = PROTO_VERSION;
		snprintf(out.u.hello.version, sizeof out.u.hello.version,
		    "%s", ORCH_VERSION);
		snprintf(out.u.hello.run_id, sizeof out.u.hello.run_id, "%s",
		    msg.u.hello.run_id);
		out.u.hello.has_facts = 1;
		snprintf(out.u.hello.facts.os, 16, "linux");
		snprintf(out.u.hello.facts.arch, 16, "%s", uname(&un) == 0 &&
		    strcmp(un.machine, "aarch64") == 0 ? "aarch64" : "x86_64");
		snprintf(out.u.hello.facts.cpu_model, 128, "Hostile CPU");
		snprintf(out.u.hello.facts.kernel, 64, "6.1");
		snprintf(out.u.hello.facts.hostname, 64, "evil");
		snprintf(out.u.hello.facts.workdir, 512, "/nonexistent");
		out.u.hello.facts.cores = 2;
		out.u.hello.facts.mem_kb = 1024;
		evil_send(e, &out);
		break;
	case PROTO_QUERY:
		out.type = PROTO_HAVE;
		out.u.hashes = msg.u.hashes;
		evil_send(e, &out);
		break;
	case PROTO_PLAN:
		e->pmsg = msg;
		e->plan = &e->pmsg.u.plan;
		e->granted = e->plan->granted != 0 ? e->plan->granted :
		    (uint32_t)e->plan->nsteps;
		return (type);	/* kept, not freed */
	case PROTO_GRANT:
		if (msg.u.grant.granted > e->granted)
			e->granted = msg.u.grant.granted;
		e->final = msg.u.grant.final;
		break;
	case PROTO_BYE:
		exit(0);
	default:
		break;
	}
	proto_msg_free(&msg);
	return (type);
}

/*
 * Sends a made-up sample of step i; failed with tail when not NULL;
 * forged: as step 2^32-1, its round + 1000.
 */
static void
evil_sample(struct evil *e, uint32_t i, const char *tail, int forged)
{
	struct proto_msg	 msg;
	struct proto_sample	*smp = &msg.u.sample;
	const struct proto_cmd	*c;
	size_t			 k;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_SAMPLE;
	smp->seq = e->seq++;
	smp->step = i;
	smp->cmd = e->plan->steps[i].cmd;
	smp->round = e->plan->steps[i].round;
	smp->warmup = e->plan->steps[i].warmup;
	smp->attempt = 1;
	smp->wall_ns = 1000000 + (uint64_t)i;
	smp->user_ns = smp->sys_ns = 1000;
	smp->start_ns = 1;
	c = &e->plan->cmds[smp->cmd];
	for (k = 0; c->has_mkeys && k < c->nmkeys; k++) {
		snprintf(smp->metrics[k].key, PROTO_NAME_MAX, "%s",
		    c->mkeys[k]);
		smp->metrics[k].value = 1.0 + (double)(i % 7);
	}
	smp->nmetrics = k;
	if (forged) {
		smp->step = 0xffffffffU;
		smp->round += 1000;
	}
	if (tail != NULL) {
		smp->status = PROTO_ST_FAILED;
		smp->exit_code = 1;
		snprintf(smp->err_tail, sizeof smp->err_tail, "%s", tail);
	}
	evil_send(e, &msg);
}

/* Sends a STATUS of state with detail. */
static void
evil_status(struct evil *e, const char *state, const char *detail)
{
	struct proto_msg	msg;

	memset(&msg, 0, sizeof msg);
	msg.type = PROTO_STATUS;
	snprintf(msg.u.state.state, sizeof msg.u.state.state, "%s", state);
	snprintf(msg.u.state.detail, sizeof msg.u.state.detail, "%s", detail);
	msg.u.state.limit = 1;
	msg.u.state.load1 = 2;
	msg.u.state.waited_ms = 1000;
	evil_send(e, &msg);
}

/* Sends n PROGS, each the plan's first host program at another path. */
static void
evil_progs(struct evil *e, long n)
{
	struct proto_msg	msg;
	struct proto_prog	pg;
	size_t			c;
	long			i;

	memset(&pg, 0, sizeof pg);
	for (c = 0; c < e->plan->ncmds; c++) {
		if (e->plan->cmds[c].has_host) {
			snprintf(pg.prog, sizeof pg.prog, "%s",
			    e->plan->cmds[c].host);
			break;
		}
	}
	if (pg.prog[0] == '\0')
		snprintf(pg.prog, sizeof pg.prog, "sh");
	memset(pg.sha, 'a', 64);
	for (i = 0; i < n; i++) {
		snprintf(pg.path, sizeof pg.path, "/usr/bin/%s-%ld", pg.prog,
		    i);
		memset(&msg, 0, sizeof msg);
		msg.type = PROTO_PROGS;
		msg.u.progs.n = 1;
		msg.u.progs.v = &pg;
		evil_send(e, &msg);
	}
}

/* The hostile agent (--agent MODE); never returns. */
static void
evil_agent(const char *mode)
{
	struct evil	 e;
	uint8_t		 key[PROTO_KEY_LEN];
	char		 line[256], run_id[64], dir[512];
	char		 path[600], ep[256], err[256];
	const char	*tmp = getenv("TMPDIR");
	uint32_t	 i = 0;
	long		 n = 0, k;
	size_t		 len = 0;
	int		 done = 0;

	memset(&e, 0, sizeof e);
	if (strncmp(mode, "grant=", 6) == 0 || strncmp(mode, "status=", 7) ==
	    0 || strncmp(mode, "progs=", 6) == 0 || strncmp(mode, "dup=", 4) ==
	    0)
		n = strtol(strchr(mode, '=') + 1, NULL, 10);
	while (len < sizeof line - 1 && read(0, line + len, 1) == 1 &&
	    line[len] != '\n')
		len++;
	line[len] = '\0';
	if (seal_keyline_parse(line, key, run_id, sizeof run_id) != 0)
		exit(2);
	snprintf(dir, sizeof dir, "%s/hostile.XXXXXX", tmp != NULL &&
	    *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		exit(2);
	snprintf(path, sizeof path, "%s/s", dir);
	if (chan_open(&e.ch, key, run_id, 1, err, sizeof err) != 0 ||
	    chan_bind_ipc(&e.ch, path, ep, sizeof ep, err, sizeof err) != 0) {
		fprintf(stderr, "hostile agent: %s\n", err);
		exit(2);
	}
	printf("ORCH-AGENT %d %s %s\n", PROTO_VERSION, ep, ORCH_VERSION);
	fflush(stdout);
	while (e.plan == NULL)
		evil_recv(&e, 200);
	if (strcmp(mode, "esc") == 0)
		evil_status(&e, "note", "pinned \x1b]0;PWNED\x07\x1b[31mred"
		    "\x1b[0m \xc2\x9b" "2J");
	for (k = 0; strncmp(mode, "status=", 7) == 0 && k < n; k++)
		evil_status(&e, "waiting-load", "waiting for a quiet machine");
	if (strncmp(mode, "progs=", 6) == 0)
		evil_progs(&e, n);
	while (!done) {
		for (; i < e.granted && i < e.plan->nsteps; i++) {
			evil_sample(&e, i, strcmp(mode, "esc") == 0 && i == 0 ?
			    "boom \x1b]0;PWNED\x07\x1b[2J" : NULL, 0);
			evil_recv(&e, 100);		/* its ACK */
			if (strcmp(mode, "forged") == 0 && i == 1)
				evil_sample(&e, 0, NULL, 1);
			for (k = 0; strncmp(mode, "dup=", 4) == 0 && i == 0 &&
			    k < n; k++) {
				e.seq--;	/* the very sample */
				evil_sample(&e, 0, NULL, 0);
			}
		}
		if (i >= e.plan->nsteps || e.final || e.plan->granted == 0) {
			done = 1;
			break;
		}
		/* The end of its grant: asks, n times at once with grant=N. */
		for (k = 0; k < (n > 0 ? n : 1); k++)
			evil_status(&e, "waiting-grant", "at the end of its "
			    "grant");
		for (k = 0; k < 100 && i >= e.granted && !e.final; k++)
			evil_recv(&e, 100);
		if (i >= e.granted && !e.final) {
			fprintf(stderr, "hostile agent: no grant in 10 s\n");
			exit(1);
		}
	}
	{
		struct proto_msg	msg;

		memset(&msg, 0, sizeof msg);
		msg.type = PROTO_DONE;
		msg.u.done.nsamples = e.seq;
		msg.u.done.ok = 1;
		evil_send(&e, &msg);
	}
	for (k = 0; k < 600; k++)
		evil_recv(&e, 100);
	exit(0);
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

	if (argc >= 3 && strcmp(argv[1], "--agent") == 0) {
		signal(SIGPIPE, SIG_IGN);
		evil_agent(argv[2]);
	}
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
