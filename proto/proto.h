/*
 * orch wire protocol: every message between the coordinator and an agent.
 * The prose specification is proto/PROTOCOL.md; keep the two in step.
 *
 * A message is a msgpack map with the key "t" holding its type (below), sealed
 * into one frame (proto/seal.h) and carried by one nanomsg PAIR message.
 */
#ifndef PROTO_PROTO_H
#define PROTO_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_VERSION	9	/* bump on any change */

#define PROTO_FRAME_MAX	(1024 * 1024)	/* largest sealed frame, bytes */
#define PROTO_KEY_LEN	32		/* AES-256 key */
#define PROTO_TAG_LEN	16		/* GCM tag */
#define PROTO_RUNTAG_LEN 16		/* run id digest in every frame
					   header */
#define PROTO_SHA_HEX	65		/* SHA-256 as lowercase hex + NUL */

#define PROTO_NAME_MAX	64		/* bench, variant, metric, fact key */
#define PROTO_METRICS_MAX 64		/* program metrics per sample */
#define PROTO_ENV_PAD_MAX 65536		/* a plan's env_pad, at most */
#define PROTO_SETTLE_MAX 10000		/* a plan's settle_ms, at most */
#define PROTO_TAIL_MAX	2048		/* stdout/stderr tail kept per sample */
#define PROTO_CHECKSUM_MAX 128		/* checksum value kept per sample */
#define PROTO_FACTS_EXTRA_MAX 32	/* extra machine facts per agent */
#define PROTO_ARGS_MAX	256		/* argv / env entries per command */
#define PROTO_PROG_MAX	256		/* a host program's name or path */
#define PROTO_PATH_MAX	1024		/* a resolved host program's path */
#define PROTO_VERSION_LINE 128		/* its --version line, sanitized */
#define PROTO_PROGS_MAX	256		/* host programs per plan */

/*
 * The bench of the harness floor's command (variant ""): the one bench
 * name that is not an identifier, so that no suite's bench can be it.
 */
#define PROTO_FLOOR_BENCH "(floor)"

/*
 * The checksum key meaning "the SHA-256 of the program's standard output"
 * (a suite's `checksum = stdout`): not an identifier, so no output line's
 * key can be it.
 */
#define PROTO_CHECKSUM_STDOUT "(stdout)"

/* The hooks of a command, indices into proto_cmd.hooks. */
#define PROTO_HOOK_PREPARE	0	/* before each run of it, untimed */
#define PROTO_HOOK_SETUP	1	/* once before its bench's first step */
#define PROTO_HOOK_CLEANUP	2	/* once after its bench's last step */
#define PROTO_NHOOKS		3

/* Message types; the value is the "t" field. */
enum proto_type {
	PROTO_HELLO = 1,	/* both: versions; agent adds its facts */
	PROTO_ERROR = 2,	/* both: something went wrong, with words */
	PROTO_QUERY = 3,	/* coordinator: which of these files do
				   you hold? */
	PROTO_HAVE = 4,		/* agent: these, verified, in my cache */
	PROTO_PLAN = 5,		/* coordinator: run these commands in
				   this order */
	PROTO_SAMPLE = 6,	/* agent: the result of one run */
	PROTO_ACK = 7,		/* coordinator: samples up to seq are stored */
	PROTO_DONE = 8,		/* agent: the plan is finished */
	PROTO_BYE = 9,		/* coordinator: exit now */
	PROTO_STATUS = 10,	/* agent: what it is doing between samples */
	PROTO_PROGS = 11,	/* agent: the host programs it resolved */
	PROTO_GRANT = 12,	/* coordinator: run the plan up to a step */
};

/* Sample status; the value is the "status" field. */
enum proto_status {
	PROTO_ST_OK = 0,	/* exited 0 */
	PROTO_ST_FAILED = 1,	/* exited non-zero, or could not start */
	PROTO_ST_TIMEOUT = 2,	/* killed by the agent at the deadline */
	PROTO_ST_SIGNAL = 3,	/* killed by a signal it did not get from us */
};

/* Error codes of the proto library. */
#define PROTO_OK		0
#define PROTO_ERR_NOMEM		-1	/* allocation failed */
#define PROTO_ERR_SHORT		-2	/* frame shorter than header + tag */
#define PROTO_ERR_TOOBIG	-3	/* frame or message above the limit */
#define PROTO_ERR_MAGIC		-4	/* not an orch frame */
#define PROTO_ERR_VERSION	-5	/* peer speaks another PROTO_VERSION */
#define PROTO_ERR_DIRECTION	-6	/* frame sealed for the other
					   direction */
#define PROTO_ERR_RUN		-7	/* frame of another run */
#define PROTO_ERR_REPLAY	-8	/* sequence repeated or went
					   backwards */
#define PROTO_ERR_TAG		-9	/* authentication failed */
#define PROTO_ERR_CRYPTO	-10	/* the crypto library failed */
#define PROTO_ERR_DECODE	-11	/* not valid msgpack */
#define PROTO_ERR_FIELD		-12	/* a field is missing, mistyped or out
					   of range */
#define PROTO_ERR_TYPE		-13	/* unknown message type */

/* Returns a static string describing a PROTO_ERR_* code. */
const char	*proto_strerror(int);

struct proto_kv {
	char	key[PROTO_NAME_MAX];
	char	value[128];
};

/* What an agent knows about its machine (agent/facts.h fills it). */
struct proto_facts {
	char		os[16];		/* "linux" or "darwin" */
	char		arch[16];	/* "x86_64" or "aarch64" */
	char		cpu_model[128];	/* "AMD EPYC 9654 96-Core Processor" */
	char		kernel[64];	/* uname -r */
	char		hostname[64];
	char		workdir[512];	/* the agent's WORKDIR, absolute */
	char		machine[PROTO_SHA_HEX];	/* SHA-256 of the machine's
					   identity (facts-OS.c), "" none */
	uint64_t	workdir_dev;	/* WORKDIR's st_dev and st_ino */
	uint64_t	workdir_ino;
	uint32_t	cores;		/* logical CPUs online */
	uint64_t	mem_kb;		/* physical memory */
	double		load[3];	/* 1, 5 and 15 minute load averages */
	size_t		nextra;
	struct proto_kv	extra[PROTO_FACTS_EXTRA_MAX]; /* governor, smt, ... */
};

struct proto_hello {
	uint32_t	proto;		/* sender's PROTO_VERSION */
	char		version[32];	/* sender's program version */
	char		run_id[64];	/* the run this session belongs to */
	int		has_host;	/* set by the coordinator */
	char		host[64];	/* the inventory name it serves */
	int		has_facts;	/* set by the agent */
	struct proto_facts facts;
};

struct proto_error {
	char	code[32];		/* short machine word: "version",
					   "file", ... */
	char	msg[512];		/* words for a person */
};

/* QUERY and HAVE: a list of SHA-256 hashes (hex). */
struct proto_hashes {
	size_t	  n;
	char	(*sha)[PROTO_SHA_HEX];
};

/* One command of a plan: a benchmark under a variant. */
struct proto_cmd {
	char		 bench[PROTO_NAME_MAX];
	char		 variant[PROTO_NAME_MAX];
	char		 exe[PROTO_SHA_HEX];	/* program: a file of the cache,
						   or "" with host set */
	int		 has_host;
	char		 host[PROTO_PROG_MAX];	/* or the host's own program:
						   a name looked up in the
						   agent's PATH, or absolute */
	size_t		 nargs;			/* argv after the program */
	char		**args;
	size_t		 nenv;			/* "NAME=value", added to the
						   agent's */
	char		**env;
	uint32_t	 timeout_ms;		/* 0: none */
	char		 checksum_key[PROTO_NAME_MAX];	/* "" when none; or
						   PROTO_CHECKSUM_STDOUT */
	int		 has_hooks;
	int32_t		 hooks[PROTO_NHOOKS];	/* indices into cmds, -1
						   none; those are hooks,
						   never steps */
	int		 has_name;
	char		 name[PROTO_PROG_MAX];	/* a cache program's base
						   name: its argv[0], and
						   the last component of
						   the path it runs from */
	int		 has_mkeys;
	size_t		 nmkeys;		/* the metric keys read from
						   its stdout; none else */
	char		**mkeys;
};

/* One host program an agent resolved (PROGS). */
struct proto_prog {
	char		 prog[PROTO_PROG_MAX];	/* as the plan named it */
	char		 path[PROTO_PATH_MAX];	/* what it found */
	char		 sha[PROTO_SHA_HEX];	/* of that file */
	char		 version[PROTO_VERSION_LINE];	/* its --version
						   line, printable; "" */
};

struct proto_progs {
	size_t		  n;
	struct proto_prog *v;
};

/* One entry of a plan's order. */
struct proto_step {
	uint32_t	cmd;		/* index into cmds */
	uint32_t	round;		/* 1..rounds; 0 for warmups */
	uint8_t		warmup;
};

struct proto_plan {
	size_t		 nfiles;	/* every file the plan uses; verified
					   first */
	char		(*files)[PROTO_SHA_HEX];
	size_t		 ncmds;
	struct proto_cmd *cmds;
	size_t		 nsteps;
	struct proto_step *steps;
	double		 max_load;	/* per core; 0: do not check */
	uint32_t	 load_wait_ms;	/* how long to wait for the load to
					   drop */
	uint32_t	 retries;	/* re-runs of a sample killed by a
					   signal */
	char		 pin[128];	/* CPU list for benchmark processes,
					   "" none */
	char		 counters[128];	/* hardware counters to read, "" none */
	int64_t		 resume_seq;	/* the coordinator stores every sample
					   with seq <= this; -1: a new run */
	uint32_t	 linger_ms;	/* stay this long, detached, for a
					   resume */
	uint32_t	 granted;	/* run steps [0, granted) until a GRANT
					   extends it; 0: the whole plan */
	int		 has_env_pad;
	uint32_t	 env_pad;	/* a measured run's environment gets
					   ORCH_ENV_PAD of 0..env_pad chars;
					   0 or absent: none */
	int		 has_env_pad_seed;
	uint64_t	 env_pad_seed;	/* keys the lengths (proto_env_pad) */
	int		 has_settle_ms;
	uint32_t	 settle_ms;	/* wait this long before the first step
					   this agent runs; 0 or absent: none */
};

struct proto_metric {
	char	key[PROTO_NAME_MAX];
	double	value;
};

struct proto_sample {
	uint32_t	seq;		/* execution order on this host,
					   from 0 */
	uint32_t	step;		/* index into the plan's steps */
	uint32_t	cmd;
	uint32_t	round;
	uint32_t	attempt;	/* 1 for the first try */
	uint8_t		warmup;
	uint8_t		status;		/* enum proto_status */
	int32_t		exit_code;	/* when it exited */
	int32_t		signal;		/* when a signal ended it */
	uint64_t	wall_ns;
	uint64_t	user_ns;
	uint64_t	sys_ns;
	uint64_t	maxrss_kb;
	uint64_t	nvcsw;
	uint64_t	nivcsw;
	double		load1;		/* 1-minute load average at the start */
	int64_t		start_ns;	/* CLOCK_REALTIME at the start, ns */
	size_t		nmetrics;
	struct proto_metric metrics[PROTO_METRICS_MAX];
	int		has_checksum;
	char		checksum[PROTO_CHECKSUM_MAX];
	char		err_tail[PROTO_TAIL_MAX];	/* stderr tail,
							   or our reason */
	int		has_env_pad;	/* a measured run of a padded plan */
	uint32_t	env_pad;	/* its ORCH_ENV_PAD's length */
};

struct proto_ack {
	uint32_t	seq;		/* every sample with seq <= this is
					   stored */
};

/* GRANT: how far an open plan (granted > 0) may run. */
struct proto_grant {
	uint32_t	granted;	/* steps [0, granted); never shrinks */
	uint8_t		final;		/* 1: the plan ends at granted */
};

struct proto_done {
	uint32_t	nsamples;	/* samples sent in all */
	char		reason[256];	/* "" when the plan completed */
	uint8_t		ok;		/* 1 when every step ran */
};

/* STATUS: why the agent is not running samples right now. */
struct proto_state {
	char		state[32];	/* "waiting-load", "note" */
	char		detail[256];	/* words for a person */
	double		load1;		/* 1-minute load average seen */
	double		limit;		/* the load it waits to fall below */
	uint32_t	waited_ms;	/* so far */
};

/* A decoded message; only the member named by type is meaningful. */
struct proto_msg {
	enum proto_type	type;
	union {
		struct proto_hello	hello;
		struct proto_error	error;
		struct proto_hashes	hashes;		/* QUERY, HAVE */
		struct proto_plan	plan;
		struct proto_sample	sample;
		struct proto_ack	ack;
		struct proto_done	done;
		struct proto_state	state;
		struct proto_progs	progs;
		struct proto_grant	grant;
	} u;
};

/*
 * Encodes msg as a msgpack map into a new buffer (*out, *outlen; free()).
 * Returns 0, or PROTO_ERR_NOMEM, or PROTO_ERR_TOOBIG when it would exceed
 * PROTO_FRAME_MAX less the frame overhead.
 */
int	proto_encode(const struct proto_msg *msg, uint8_t **out,
	    size_t *outlen);

/*
 * Decodes one message from buf (authenticated plaintext). On success fills
 * msg, which the caller releases with proto_msg_free(). Returns 0 or a
 * negative PROTO_ERR_* code; on error msg needs no freeing.
 */
int	proto_decode(const uint8_t *buf, size_t len, struct proto_msg *msg);

/*
 * Walks one msgpack object at buf[0..len) without allocating (see msg.c):
 * 0 with its length in *used, 1 when it does not end within len (cut
 * short, or a container claiming more elements than bytes remain), -1 when
 * it is not msgpack or nests deeper than maxdepth (<= PROTO_SCAN_DEPTH).
 */
#define PROTO_SCAN_DEPTH	32
int	proto_scan(const uint8_t *buf, size_t len, size_t maxdepth,
	    size_t *used);

/* Frees what proto_decode() or the caller allocated inside msg; NULL is ok. */
void	proto_msg_free(struct proto_msg *msg);

/* Returns the name of a message type ("hello", ...), or "unknown". */
const char	*proto_type_name(int type);

/* Returns the name of a status ("ok", "failed", "timeout", "signal"). */
const char	*proto_status_name(int status);

#endif
