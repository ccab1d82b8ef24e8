/*
 * Wire messages: struct proto_msg to and from msgpack maps.
 *
 * Each struct is described by a table of fields (name, kind, offset); one
 * walker encodes a table and one decodes it. A table also describes the
 * elements of an array of structs (struct msg_vec), of a fixed-size member
 * sent by position (a tuple) and of a map of distinct names; the few
 * members left have their own functions. proto/PROTOCOL.md is the prose
 * form of these tables.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "proto/be.h"
#include "proto/hash.h"
#include "proto/ident.h"
#include "proto/proto.h"
#include "proto/seal.h"

/* Deepest container nesting accepted; the messages themselves use four. */
#define MSG_DEPTH_MAX	16

/* Largest encoded message: what fits in a frame beside the seal. */
#define MSG_ENC_MAX	(PROTO_FRAME_MAX - SEAL_OVERHEAD)

/* Marks a required field in struct msg_field's has. */
#define MSG_REQ		SIZE_MAX

#define MSG_NITEMS(a)	(sizeof (a) / sizeof (a)[0])

enum msg_kind {
	MSG_U8,		/* uint8_t, 0..max */
	MSG_U32,	/* uint32_t */
	MSG_U64,	/* uint64_t */
	MSG_I32,	/* int32_t */
	MSG_I64,	/* int64_t */
	MSG_IDX,	/* int32_t, an index 0..INT32_MAX or -1 for none */
	MSG_F64,	/* double, sent as float64 */
	MSG_STR,	/* char[size], NUL-terminated, no NUL inside */
	MSG_IDENT,	/* a MSG_STR that is an identifier (proto/ident.h) */
	MSG_IDENT0,	/* a MSG_IDENT or "" */
	MSG_BENCH,	/* a MSG_IDENT or PROTO_FLOOR_BENCH */
	MSG_HASH,	/* char[PROTO_SHA_HEX], 64 lowercase hex digits */
	MSG_HASH0,	/* a MSG_HASH or "" */
	MSG_CKEY,	/* a MSG_IDENT0 or PROTO_CHECKSUM_STDOUT */
	MSG_VEC,	/* an array of structs, its pointer and count: vec */
	MSG_SUB		/* anything else: dec and enc */
};

struct msg_field {
	const char	*name;		/* the map key */
	enum msg_kind	 kind;
	size_t		 off;		/* offset of the member in its struct */
	size_t		 size;		/* size of the member */
	uint8_t		 max;		/* largest value of a MSG_U8 */
	size_t		 has;		/* offset of its "present" int, or
					   MSG_REQ */
	int		(*dec)(const msgpack_object *, void *);
	int		(*enc)(msgpack_packer *, const void *);
	const struct msg_vec *vec;	/* of a MSG_VEC */
};

/*
 * A member that is an array of structs (a pointer and a count beside it),
 * each sent as a map by its table or, for a tuple, as an array of exactly
 * its table's fields in order.
 */
struct msg_vec {
	size_t			 voff;		/* offset of the pointer */
	size_t			 noff;		/* offset of the count */
	size_t			 size;		/* of one struct */
	const struct msg_field	*tab;
	size_t			 n;		/* fields in tab */
	int			 tuple;		/* arrays, not maps */
	size_t			 min;		/* fewest keys of a map */
	size_t			 max;		/* most structs */
};

/*
 * Any struct: msg_dec_vec and msg_enc_vec move the array's pointer as one
 * of these, since all pointers to structs share one representation (C11
 * 6.2.5) while a void * need not.
 */
struct msg_any;

#define MSG_F(t, m, k) \
	{ #m, k, offsetof(t, m), sizeof(((t *)0)->m), 0, MSG_REQ, NULL, NULL, \
	    NULL }
#define MSG_FMAX(t, m, mx) \
	{ #m, MSG_U8, offsetof(t, m), sizeof(((t *)0)->m), mx, MSG_REQ, NULL, \
	    NULL, NULL }
#define MSG_FOPT(t, m, k, h) \
	{ #m, k, offsetof(t, m), sizeof(((t *)0)->m), 0, offsetof(t, h), NULL, \
	    NULL, NULL }
#define MSG_FSUB(n, d, e) \
	{ n, MSG_SUB, 0, 0, 0, MSG_REQ, d, e, NULL }
#define MSG_FVEC(n, v) \
	{ n, MSG_VEC, 0, 0, 0, MSG_REQ, NULL, NULL, v }

/* A struct msg_vec's start: member v of struct t points to n of them. */
#define MSG_VEC_OF(t, v, n) \
	offsetof(t, v), offsetof(t, n), sizeof(*((t *)0)->v)

/* The encoder's output: grows up to MSG_ENC_MAX, remembers its first error. */
struct msg_buf {
	unsigned char	*data;
	size_t		 len;
	size_t		 cap;
	int		 err;		/* 0, PROTO_ERR_NOMEM or
					   PROTO_ERR_TOOBIG */
};

static int	msg_dec_vec(const msgpack_object *, const struct msg_vec *,
		    void *);
static int	msg_enc_vec(msgpack_packer *, const struct msg_vec *,
		    const void *);
static int	msg_dec_facts(const msgpack_object *, void *);
static int	msg_enc_facts(msgpack_packer *, const void *);
static int	msg_dec_load(const msgpack_object *, void *);
static int	msg_enc_load(msgpack_packer *, const void *);
static int	msg_dec_extra(const msgpack_object *, void *);
static int	msg_enc_extra(msgpack_packer *, const void *);
static int	msg_dec_sha(const msgpack_object *, void *);
static int	msg_enc_sha(msgpack_packer *, const void *);
static int	msg_dec_files(const msgpack_object *, void *);
static int	msg_enc_files(msgpack_packer *, const void *);
static int	msg_dec_args(const msgpack_object *, void *);
static int	msg_enc_args(msgpack_packer *, const void *);
static int	msg_dec_env(const msgpack_object *, void *);
static int	msg_enc_env(msgpack_packer *, const void *);
static int	msg_dec_metrics(const msgpack_object *, void *);
static int	msg_enc_metrics(msgpack_packer *, const void *);
static int	msg_check_plan(const void *);
static int	msg_check_sample(const void *);
static int	msg_dec_hooks(const msgpack_object *, void *);
static int	msg_enc_hooks(msgpack_packer *, const void *);
static int	msg_dec_mkeys(const msgpack_object *, void *);
static int	msg_enc_mkeys(msgpack_packer *, const void *);

/* The facts' "load", by position: the names are not sent. */
static const struct msg_field msg_load_tab[] = {
	MSG_F(struct proto_facts, load[0], MSG_F64),
	MSG_F(struct proto_facts, load[1], MSG_F64),
	MSG_F(struct proto_facts, load[2], MSG_F64),
};

/* The facts' "extra": a key and its value. */
static const struct msg_field msg_extra_tab[] = {
	MSG_F(struct proto_kv, key, MSG_IDENT),
	MSG_F(struct proto_kv, value, MSG_STR),
};

static const struct msg_field msg_facts_tab[] = {
	MSG_F(struct proto_facts, os, MSG_STR),
	MSG_F(struct proto_facts, arch, MSG_STR),
	MSG_F(struct proto_facts, cpu_model, MSG_STR),
	MSG_F(struct proto_facts, kernel, MSG_STR),
	MSG_F(struct proto_facts, hostname, MSG_STR),
	MSG_F(struct proto_facts, workdir, MSG_STR),
	MSG_F(struct proto_facts, machine, MSG_HASH0),
	MSG_F(struct proto_facts, workdir_dev, MSG_U64),
	MSG_F(struct proto_facts, workdir_ino, MSG_U64),
	MSG_F(struct proto_facts, cores, MSG_U32),
	MSG_F(struct proto_facts, mem_kb, MSG_U64),
	MSG_FSUB("load", msg_dec_load, msg_enc_load),
	MSG_FSUB("extra", msg_dec_extra, msg_enc_extra),
};

static const struct msg_field msg_hello_tab[] = {
	MSG_F(struct proto_hello, proto, MSG_U32),
	MSG_F(struct proto_hello, version, MSG_STR),
	MSG_F(struct proto_hello, run_id, MSG_IDENT),
	MSG_FOPT(struct proto_hello, host, MSG_STR, has_host),
	{ "facts", MSG_SUB, 0, 0, 0, offsetof(struct proto_hello, has_facts),
	    msg_dec_facts, msg_enc_facts, NULL },
};

static const struct msg_field msg_error_tab[] = {
	MSG_F(struct proto_error, code, MSG_STR),
	MSG_F(struct proto_error, msg, MSG_STR),
};

static const struct msg_field msg_hashes_tab[] = {
	MSG_FSUB("sha", msg_dec_sha, msg_enc_sha),
};

static const struct msg_field msg_cmd_tab[] = {
	MSG_F(struct proto_cmd, bench, MSG_BENCH),
	MSG_F(struct proto_cmd, variant, MSG_IDENT0),
	MSG_F(struct proto_cmd, exe, MSG_HASH0),
	MSG_FSUB("args", msg_dec_args, msg_enc_args),
	MSG_FSUB("env", msg_dec_env, msg_enc_env),
	MSG_F(struct proto_cmd, timeout_ms, MSG_U32),
	MSG_F(struct proto_cmd, checksum_key, MSG_CKEY),
	MSG_FOPT(struct proto_cmd, host, MSG_STR, has_host),
	{ "hooks", MSG_SUB, 0, 0, 0, offsetof(struct proto_cmd, has_hooks),
	    msg_dec_hooks, msg_enc_hooks, NULL },
	MSG_FOPT(struct proto_cmd, name, MSG_STR, has_name),
	{ "metrics", MSG_SUB, 0, 0, 0, offsetof(struct proto_cmd, has_mkeys),
	    msg_dec_mkeys, msg_enc_mkeys, NULL },
};

/* The fields every command has (the optional ones come last). */
#define MSG_CMD_REQUIRED	7

/* A command's "hooks", by position: the names are not sent. */
static const struct msg_field msg_hooks_tab[] = {
	MSG_F(struct proto_cmd, hooks[PROTO_HOOK_PREPARE], MSG_IDX),
	MSG_F(struct proto_cmd, hooks[PROTO_HOOK_SETUP], MSG_IDX),
	MSG_F(struct proto_cmd, hooks[PROTO_HOOK_CLEANUP], MSG_IDX),
};
_Static_assert(MSG_NITEMS(msg_hooks_tab) == PROTO_NHOOKS, "hooks table");

static const struct msg_field msg_prog_tab[] = {
	MSG_F(struct proto_prog, prog, MSG_STR),
	MSG_F(struct proto_prog, path, MSG_STR),
	MSG_F(struct proto_prog, sha, MSG_HASH),
	MSG_F(struct proto_prog, version, MSG_STR),
};

/* Every field of a program is required, so a smaller map is not one. */
static const struct msg_vec msg_progs_vec = {
	MSG_VEC_OF(struct proto_progs, v, n), msg_prog_tab,
	MSG_NITEMS(msg_prog_tab), 0, MSG_NITEMS(msg_prog_tab), PROTO_PROGS_MAX
};

static const struct msg_field msg_progs_tab[] = {
	MSG_FVEC("progs", &msg_progs_vec),
};

/* One of PLAN's "steps", [cmd, round, warmup] by position. */
static const struct msg_field msg_step_tab[] = {
	MSG_F(struct proto_step, cmd, MSG_U32),
	MSG_F(struct proto_step, round, MSG_U32),
	MSG_FMAX(struct proto_step, warmup, 1),
};

/*
 * Smaller maps than the required fields cannot be commands. Commands and
 * steps have no bound of their own: proto_scan has checked that each
 * element holds its bytes in the frame, and msg_check_plan the rest.
 */
static const struct msg_vec msg_cmds_vec = {
	MSG_VEC_OF(struct proto_plan, cmds, ncmds), msg_cmd_tab,
	MSG_NITEMS(msg_cmd_tab), 0, MSG_CMD_REQUIRED, SIZE_MAX
};

static const struct msg_vec msg_steps_vec = {
	MSG_VEC_OF(struct proto_plan, steps, nsteps), msg_step_tab,
	MSG_NITEMS(msg_step_tab), 1, 0, SIZE_MAX
};

static const struct msg_field msg_plan_tab[] = {
	MSG_FSUB("files", msg_dec_files, msg_enc_files),
	MSG_FVEC("cmds", &msg_cmds_vec),
	MSG_FVEC("steps", &msg_steps_vec),
	MSG_F(struct proto_plan, max_load, MSG_F64),
	MSG_F(struct proto_plan, load_wait_ms, MSG_U32),
	MSG_F(struct proto_plan, retries, MSG_U32),
	MSG_F(struct proto_plan, pin, MSG_STR),
	MSG_F(struct proto_plan, counters, MSG_STR),
	MSG_F(struct proto_plan, resume_seq, MSG_I64),
	MSG_F(struct proto_plan, linger_ms, MSG_U32),
	MSG_F(struct proto_plan, granted, MSG_U32),
	MSG_FOPT(struct proto_plan, env_pad, MSG_U32, has_env_pad),
	MSG_FOPT(struct proto_plan, env_pad_seed, MSG_U64, has_env_pad_seed),
	MSG_FOPT(struct proto_plan, settle_ms, MSG_U32, has_settle_ms),
};

static const struct msg_field msg_grant_tab[] = {
	MSG_F(struct proto_grant, granted, MSG_U32),
	MSG_FMAX(struct proto_grant, final, 1),
};

static const struct msg_field msg_sample_tab[] = {
	MSG_F(struct proto_sample, seq, MSG_U32),
	MSG_F(struct proto_sample, step, MSG_U32),
	MSG_F(struct proto_sample, cmd, MSG_U32),
	MSG_F(struct proto_sample, round, MSG_U32),
	MSG_F(struct proto_sample, attempt, MSG_U32),
	MSG_FMAX(struct proto_sample, warmup, 1),
	MSG_FMAX(struct proto_sample, status, PROTO_ST_SIGNAL),
	MSG_F(struct proto_sample, exit_code, MSG_I32),
	MSG_F(struct proto_sample, signal, MSG_I32),
	MSG_F(struct proto_sample, wall_ns, MSG_U64),
	MSG_F(struct proto_sample, user_ns, MSG_U64),
	MSG_F(struct proto_sample, sys_ns, MSG_U64),
	MSG_F(struct proto_sample, maxrss_kb, MSG_U64),
	MSG_F(struct proto_sample, nvcsw, MSG_U64),
	MSG_F(struct proto_sample, nivcsw, MSG_U64),
	MSG_F(struct proto_sample, load1, MSG_F64),
	MSG_F(struct proto_sample, start_ns, MSG_I64),
	MSG_FSUB("metrics", msg_dec_metrics, msg_enc_metrics),
	MSG_FOPT(struct proto_sample, checksum, MSG_STR, has_checksum),
	MSG_F(struct proto_sample, err_tail, MSG_STR),
	MSG_FOPT(struct proto_sample, env_pad, MSG_U32, has_env_pad),
};

/* SAMPLE's "metrics": a key and its value. */
static const struct msg_field msg_metric_tab[] = {
	MSG_F(struct proto_metric, key, MSG_IDENT),
	MSG_F(struct proto_metric, value, MSG_F64),
};

static const struct msg_field msg_ack_tab[] = {
	MSG_F(struct proto_ack, seq, MSG_U32),
};

static const struct msg_field msg_done_tab[] = {
	MSG_F(struct proto_done, nsamples, MSG_U32),
	MSG_F(struct proto_done, reason, MSG_STR),
	MSG_FMAX(struct proto_done, ok, 1),
};

static const struct msg_field msg_status_tab[] = {
	MSG_F(struct proto_state, state, MSG_STR),
	MSG_F(struct proto_state, detail, MSG_STR),
	MSG_F(struct proto_state, load1, MSG_F64),
	MSG_F(struct proto_state, limit, MSG_F64),
	MSG_F(struct proto_state, waited_ms, MSG_U32),
};

/* msg_dec_map tracks the fields it has seen in a 64-bit mask. */
_Static_assert(MSG_NITEMS(msg_sample_tab) <= 64, "sample table too long");

/* Every message type, its name, its fields and any whole-message check. */
static const struct msg_type {
	enum proto_type		 type;
	const char		*name;
	const struct msg_field	*tab;
	size_t			 n;
	int			(*check)(const void *);
} msg_types[] = {
	{ PROTO_HELLO, "hello", msg_hello_tab, MSG_NITEMS(msg_hello_tab),
	    NULL },
	{ PROTO_ERROR, "error", msg_error_tab, MSG_NITEMS(msg_error_tab),
	    NULL },
	{ PROTO_QUERY, "query", msg_hashes_tab, MSG_NITEMS(msg_hashes_tab),
	    NULL },
	{ PROTO_HAVE, "have", msg_hashes_tab, MSG_NITEMS(msg_hashes_tab),
	    NULL },
	{ PROTO_PLAN, "plan", msg_plan_tab, MSG_NITEMS(msg_plan_tab),
	    msg_check_plan },
	{ PROTO_SAMPLE, "sample", msg_sample_tab, MSG_NITEMS(msg_sample_tab),
	    msg_check_sample },
	{ PROTO_ACK, "ack", msg_ack_tab, MSG_NITEMS(msg_ack_tab), NULL },
	{ PROTO_DONE, "done", msg_done_tab, MSG_NITEMS(msg_done_tab), NULL },
	{ PROTO_BYE, "bye", NULL, 0, NULL },
	{ PROTO_STATUS, "status", msg_status_tab, MSG_NITEMS(msg_status_tab),
	    NULL },
	{ PROTO_PROGS, "progs", msg_progs_tab, MSG_NITEMS(msg_progs_tab),
	    NULL },
	{ PROTO_GRANT, "grant", msg_grant_tab, MSG_NITEMS(msg_grant_tab),
	    NULL },
};

/* Returns the description of a message type, or NULL. */
static const struct msg_type *
msg_type_find(uint64_t type)
{
	size_t	i;

	for (i = 0; i < MSG_NITEMS(msg_types); i++) {
		if ((uint64_t)msg_types[i].type == type)
			return (&msg_types[i]);
	}
	return (NULL);
}

/* ---- decoding ----------------------------------------------------------- */

/*
 * Walks the msgpack object at buf[0..len) without building it. msgpack-c
 * trusts container counts and allocates for them as soon as it reads a
 * header, so this runs first and finds, in one pass and without
 * allocating: a container claiming more elements than bytes remain (each
 * takes one at least), nesting deeper than maxdepth (at most
 * PROTO_SCAN_DEPTH), anything incomplete. Returns 0 with the object's
 * length in *used; 1 when it does not end within len; -1 when it is not
 * msgpack or nests too deep. Used for frames and for the run record.
 * Long: the msgpack type-byte table is one switch; splitting it would hide
 * which bytes are refused.
 */
int
proto_scan(const uint8_t *buf, size_t len, size_t maxdepth, size_t *used)
{
	uint64_t	left[PROTO_SCAN_DEPTH + 1];	/* objects due
							   per level */
	uint64_t	count, body, v;
	size_t		depth = 0, off = 0, lb;
	uint8_t		b;
	int		map;

	if (maxdepth > PROTO_SCAN_DEPTH)
		maxdepth = PROTO_SCAN_DEPTH;
	left[0] = 1;
	for (;;) {
		while (left[depth] == 0) {
			if (depth == 0) {
				*used = off;
				return (0);
			}
			depth--;
		}
		left[depth]--;
		if (off >= len)
			return (1);
		b = buf[off++];
		count = body = 0;
		lb = 0;
		map = -1;
		if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 ||
		    b == 0xc3)
			;			/* fixint, nil, bool */
		else if (b <= 0x8f)
			count = 2 * (uint64_t)(b & 0x0f);
		else if (b <= 0x9f)
			count = b & 0x0f;
		else if (b <= 0xbf)
			body = b & 0x1f;
		else {
			switch (b) {
			case 0xc4: case 0xd9: lb = 1; break;	/* bin, str */
			case 0xc5: case 0xda: lb = 2; break;
			case 0xc6: case 0xdb: lb = 4; break;
			case 0xc7: lb = 1; body = 1; break;	/* ext + type */
			case 0xc8: lb = 2; body = 1; break;
			case 0xc9: lb = 4; body = 1; break;
			case 0xca: body = 4; break;		/* float */
			case 0xcb: body = 8; break;
			case 0xcc: case 0xd0: body = 1; break;	/* (u)int */
			case 0xcd: case 0xd1: body = 2; break;
			case 0xce: case 0xd2: body = 4; break;
			case 0xcf: case 0xd3: body = 8; break;
			case 0xd4: body = 2; break;		/* fixext */
			case 0xd5: body = 3; break;
			case 0xd6: body = 5; break;
			case 0xd7: body = 9; break;
			case 0xd8: body = 17; break;
			case 0xdc: lb = 2; map = 0; break;	/* array */
			case 0xdd: lb = 4; map = 0; break;
			case 0xde: lb = 2; map = 1; break;	/* map */
			case 0xdf: lb = 4; map = 1; break;
			default:				/* 0xc1 */
				return (-1);
			}
		}
		if (lb > 0) {
			if (len - off < lb)
				return (1);
			v = be_get(buf + off, lb);
			off += lb;
			if (map == 1)
				count = 2 * v;
			else if (map == 0)
				count = v;
			else
				body += v;
		}
		if (body > len - off)
			return (1);
		off += (size_t)body;
		if (count > 0) {
			if (depth == maxdepth)
				return (-1);
			if (count > len - off)
				return (1);
			left[++depth] = count;
		}
	}
}

/* A frame's body is one whole object and nothing after it. */
static int
msg_scan(const uint8_t *buf, size_t len)
{
	size_t	used;

	if (proto_scan(buf, len, MSG_DEPTH_MAX, &used) != 0 || used != len)
		return (PROTO_ERR_DECODE);
	return (0);
}

/* Returns 1 when o is the string name. */
static int
msg_key_is(const msgpack_object *o, const char *name)
{
	size_t	n = strlen(name);

	return (o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
	    memcmp(o->via.str.ptr, name, n) == 0);
}

/* Reads an unsigned integer no larger than max. */
static int
msg_get_uint(const msgpack_object *o, uint64_t max, uint64_t *v)
{
	if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > max)
		return (PROTO_ERR_FIELD);
	*v = o->via.u64;
	return (0);
}

/* Reads a signed integer within min..max. */
static int
msg_get_int(const msgpack_object *o, int64_t min, int64_t max, int64_t *v)
{
	if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER &&
	    o->via.u64 <= (uint64_t)max)
		*v = (int64_t)o->via.u64;
	else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER &&
	    o->via.i64 >= min)
		*v = o->via.i64;
	else
		return (PROTO_ERR_FIELD);
	return (0);
}

/* Reads a number as a double: float64, float32 or an integer. */
static int
msg_get_f64(const msgpack_object *o, double *v)
{
	switch (o->type) {
	case MSGPACK_OBJECT_FLOAT64:
	case MSGPACK_OBJECT_FLOAT32:
		*v = o->via.f64;
		return (0);
	case MSGPACK_OBJECT_POSITIVE_INTEGER:
		*v = (double)o->via.u64;
		return (0);
	case MSGPACK_OBJECT_NEGATIVE_INTEGER:
		*v = (double)o->via.i64;
		return (0);
	default:
		return (PROTO_ERR_FIELD);
	}
}

/* Returns 1 when o is a string without NUL bytes shorter than size. */
static int
msg_str_ok(const msgpack_object *o, size_t size)
{
	if (o->type != MSGPACK_OBJECT_STR || o->via.str.size >= size)
		return (0);
	return (o->via.str.size == 0 ||
	    memchr(o->via.str.ptr, '\0', o->via.str.size) == NULL);
}

/* Copies a string into dst[size]; too long is an error, never truncated. */
static int
msg_get_str(const msgpack_object *o, char *dst, size_t size)
{
	if (!msg_str_ok(o, size))
		return (PROTO_ERR_FIELD);
	if (o->via.str.size > 0)
		memcpy(dst, o->via.str.ptr, o->via.str.size);
	dst[o->via.str.size] = '\0';
	return (0);
}

/* Copies an identifier (or, when empty_ok, ""); anything else is an error. */
static int
msg_get_ident(const msgpack_object *o, char *dst, size_t size, int empty_ok)
{
	if (msg_get_str(o, dst, size) != 0)
		return (PROTO_ERR_FIELD);
	if (dst[0] == '\0' ? !empty_ok : !ident_str_ok(dst, size))
		return (PROTO_ERR_FIELD);
	return (0);
}

/* Copies a hash, which must be 64 lowercase hex digits. */
static int
msg_get_hash(const msgpack_object *o, char dst[PROTO_SHA_HEX])
{
	if (msg_get_str(o, dst, PROTO_SHA_HEX) != 0 || !hash_valid(dst))
		return (PROTO_ERR_FIELD);
	return (0);
}

/* Decodes one field of a table into the struct at base. */
static int
msg_dec_field(const struct msg_field *f, const msgpack_object *o, void *base)
{
	unsigned char	*p = (unsigned char *)base + f->off;
	uint64_t	 u;
	int64_t		 i;
	double		 d;
	uint32_t	 u32;
	int32_t		 i32;
	uint8_t		 u8;

	switch (f->kind) {
	case MSG_U8:
		if (msg_get_uint(o, f->max, &u) != 0)
			return (PROTO_ERR_FIELD);
		u8 = (uint8_t)u;
		memcpy(p, &u8, sizeof u8);
		return (0);
	case MSG_U32:
		if (msg_get_uint(o, UINT32_MAX, &u) != 0)
			return (PROTO_ERR_FIELD);
		u32 = (uint32_t)u;
		memcpy(p, &u32, sizeof u32);
		return (0);
	case MSG_U64:
		if (msg_get_uint(o, UINT64_MAX, &u) != 0)
			return (PROTO_ERR_FIELD);
		memcpy(p, &u, sizeof u);
		return (0);
	case MSG_I32:
	case MSG_IDX:
		if (msg_get_int(o, f->kind == MSG_IDX ? -1 : INT32_MIN,
		    INT32_MAX, &i) != 0)
			return (PROTO_ERR_FIELD);
		i32 = (int32_t)i;
		memcpy(p, &i32, sizeof i32);
		return (0);
	case MSG_I64:
		if (msg_get_int(o, INT64_MIN, INT64_MAX, &i) != 0)
			return (PROTO_ERR_FIELD);
		memcpy(p, &i, sizeof i);
		return (0);
	case MSG_F64:
		if (msg_get_f64(o, &d) != 0)
			return (PROTO_ERR_FIELD);
		memcpy(p, &d, sizeof d);
		return (0);
	case MSG_STR:
		return (msg_get_str(o, (char *)p, f->size));
	case MSG_IDENT:
	case MSG_IDENT0:
		return (msg_get_ident(o, (char *)p, f->size,
		    f->kind == MSG_IDENT0));
	case MSG_BENCH:
		if (msg_get_str(o, (char *)p, f->size) == 0 &&
		    strcmp((char *)p, PROTO_FLOOR_BENCH) == 0)
			return (0);
		return (msg_get_ident(o, (char *)p, f->size, 0));
	case MSG_HASH:
		return (msg_get_hash(o, (char *)p));
	case MSG_HASH0:
		if (msg_get_str(o, (char *)p, f->size) == 0 &&
		    *(char *)p == '\0')
			return (0);
		return (msg_get_hash(o, (char *)p));
	case MSG_CKEY:
		if (msg_get_str(o, (char *)p, f->size) == 0 &&
		    strcmp((char *)p, PROTO_CHECKSUM_STDOUT) == 0)
			return (0);
		return (msg_get_ident(o, (char *)p, f->size, 1));
	case MSG_VEC:
		return (msg_dec_vec(o, f->vec, base));
	case MSG_SUB:
		return (f->dec(o, base));
	}
	return (PROTO_ERR_FIELD);
}

/*
 * Decodes a map by its table into base: unknown keys are skipped (a newer
 * peer may send more), a key given twice or a required key missing is an
 * error. What a field allocated stays in base for the caller to free.
 */
static int
msg_dec_map(const msgpack_object *o, const struct msg_field *tab, size_t n,
    void *base)
{
	const msgpack_object_kv	*kv;
	uint64_t		 seen = 0;
	size_t			 i, j;
	int			 r, one = 1;

	if (o->type != MSGPACK_OBJECT_MAP)
		return (PROTO_ERR_FIELD);
	for (i = 0; i < o->via.map.size; i++) {
		kv = &o->via.map.ptr[i];
		for (j = 0; j < n; j++) {
			if (msg_key_is(&kv->key, tab[j].name))
				break;
		}
		if (j == n)
			continue;
		/* Twice would also leak what the first one allocated. */
		if (seen & ((uint64_t)1 << j))
			return (PROTO_ERR_FIELD);
		seen |= (uint64_t)1 << j;
		if ((r = msg_dec_field(&tab[j], &kv->val, base)) != 0)
			return (r);
		if (tab[j].has != MSG_REQ)
			memcpy((unsigned char *)base + tab[j].has, &one,
			    sizeof one);
	}
	for (j = 0; j < n; j++) {
		if (tab[j].has == MSG_REQ && !(seen & ((uint64_t)1 << j)))
			return (PROTO_ERR_FIELD);
	}
	return (0);
}

/*
 * Decodes an array of exactly n values into base, the i-th by tab[i]: the
 * members of a fixed size (a step, the load, the hooks) carry no keys.
 */
static int
msg_dec_tuple(const msgpack_object *o, const struct msg_field *tab, size_t n,
    void *base)
{
	size_t	i;
	int	r;

	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != n)
		return (PROTO_ERR_FIELD);
	for (i = 0; i < n; i++) {
		r = msg_dec_field(&tab[i], &o->via.array.ptr[i], base);
		if (r != 0)
			return (r);
	}
	return (0);
}

/*
 * Decodes an array of at most vec->max structs into a new array in base.
 * Every element's shape is checked before the allocation, so its size
 * follows what the input holds; the array is in base before its elements
 * are decoded, so what they allocate is freed with the message even when
 * a later one fails.
 */
static int
msg_dec_vec(const msgpack_object *o, const struct msg_vec *vec, void *base)
{
	const msgpack_object	*e;
	struct msg_any		*any;
	unsigned char		*v;
	size_t			 i, n;
	int			 r;

	if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size > vec->max)
		return (PROTO_ERR_FIELD);
	n = o->via.array.size;
	for (i = 0; i < n; i++) {
		e = &o->via.array.ptr[i];
		if (e->type != (vec->tuple ? MSGPACK_OBJECT_ARRAY :
		    MSGPACK_OBJECT_MAP))
			return (PROTO_ERR_FIELD);
		if (vec->tuple ? e->via.array.size != vec->n :
		    e->via.map.size < vec->min)
			return (PROTO_ERR_FIELD);
	}
	if (n == 0)
		return (0);
	if ((any = calloc(n, vec->size)) == NULL)
		return (PROTO_ERR_NOMEM);
	memcpy((unsigned char *)base + vec->voff, &any, sizeof any);
	memcpy((unsigned char *)base + vec->noff, &n, sizeof n);
	v = (unsigned char *)any;
	for (i = 0; i < n; i++, v += vec->size) {
		e = &o->via.array.ptr[i];
		if (vec->tuple)
			r = msg_dec_tuple(e, vec->tab, vec->n, v);
		else
			r = msg_dec_map(e, vec->tab, vec->n, v);
		if (r != 0)
			return (r);
	}
	return (0);
}

/*
 * Decodes a map of at most max distinct names into v[], structs of size
 * bytes whose key (an MSG_IDENT) and value tab[0] and tab[1] describe.
 * The structs sit in the message itself, so max is their array's length.
 */
static int
msg_dec_names(const msgpack_object *o, const struct msg_field *tab,
    size_t max, void *v, size_t size, size_t *np)
{
	const msgpack_object_kv	*kv;
	unsigned char		*p = v;
	size_t			 i, j;

	if (o->type != MSGPACK_OBJECT_MAP || o->via.map.size > max)
		return (PROTO_ERR_FIELD);
	for (i = 0; i < o->via.map.size; i++) {
		kv = &o->via.map.ptr[i];
		if (msg_dec_field(&tab[0], &kv->key, p + i * size) != 0 ||
		    msg_dec_field(&tab[1], &kv->val, p + i * size) != 0)
			return (PROTO_ERR_FIELD);
		for (j = 0; j < i; j++) {
			if (strcmp((char *)p + j * size + tab[0].off,
			    (char *)p + i * size + tab[0].off) == 0)
				return (PROTO_ERR_FIELD);
		}
	}
	*np = o->via.map.size;
	return (0);
}

/* Decodes an array of hashes into a new array of char[PROTO_SHA_HEX]. */
static int
msg_dec_hashv(const msgpack_object *o, size_t *np, char (**vp)[PROTO_SHA_HEX])
{
	size_t	i, n;

	if (o->type != MSGPACK_OBJECT_ARRAY)
		return (PROTO_ERR_FIELD);
	n = o->via.array.size;
	/* Check the shape first so the allocation follows real input. */
	for (i = 0; i < n; i++) {
		if (o->via.array.ptr[i].type != MSGPACK_OBJECT_STR ||
		    o->via.array.ptr[i].via.str.size != PROTO_SHA_HEX - 1)
			return (PROTO_ERR_FIELD);
	}
	if (n == 0)
		return (0);
	if ((*vp = calloc(n, sizeof **vp)) == NULL)
		return (PROTO_ERR_NOMEM);
	*np = n;
	for (i = 0; i < n; i++) {
		if (msg_get_hash(&o->via.array.ptr[i], (*vp)[i]) != 0)
			return (PROTO_ERR_FIELD);
	}
	return (0);
}

/* Decodes QUERY's and HAVE's "sha". */
static int
msg_dec_sha(const msgpack_object *o, void *base)
{
	struct proto_hashes	*h = base;

	return (msg_dec_hashv(o, &h->n, &h->sha));
}

/* Decodes PLAN's "files". */
static int
msg_dec_files(const msgpack_object *o, void *base)
{
	struct proto_plan	*p = base;

	return (msg_dec_hashv(o, &p->nfiles, &p->files));
}

/* Decodes an array of at most PROTO_ARGS_MAX strings; env ones need NAME=. */
static int
msg_dec_strv(const msgpack_object *o, int env, size_t *np, char ***vp)
{
	const msgpack_object	*e;
	const char		*eq;
	size_t			 i, n;

	if (o->type != MSGPACK_OBJECT_ARRAY ||
	    o->via.array.size > PROTO_ARGS_MAX)
		return (PROTO_ERR_FIELD);
	n = o->via.array.size;
	for (i = 0; i < n; i++) {
		e = &o->via.array.ptr[i];
		if (!msg_str_ok(e, SIZE_MAX))
			return (PROTO_ERR_FIELD);
		if (env) {
			eq = e->via.str.size == 0 ? NULL :
			    memchr(e->via.str.ptr, '=', e->via.str.size);
			if (eq == NULL || eq == e->via.str.ptr)
				return (PROTO_ERR_FIELD);
		}
	}
	if (n == 0)
		return (0);
	if ((*vp = calloc(n, sizeof **vp)) == NULL)
		return (PROTO_ERR_NOMEM);
	*np = n;
	for (i = 0; i < n; i++) {
		e = &o->via.array.ptr[i];
		if (((*vp)[i] = malloc(e->via.str.size + 1)) == NULL)
			return (PROTO_ERR_NOMEM);
		if (e->via.str.size > 0)
			memcpy((*vp)[i], e->via.str.ptr, e->via.str.size);
		(*vp)[i][e->via.str.size] = '\0';
	}
	return (0);
}

/* Decodes a command's "args". */
static int
msg_dec_args(const msgpack_object *o, void *base)
{
	struct proto_cmd	*c = base;

	return (msg_dec_strv(o, 0, &c->nargs, &c->args));
}

/* Decodes a command's "env". */
static int
msg_dec_env(const msgpack_object *o, void *base)
{
	struct proto_cmd	*c = base;

	return (msg_dec_strv(o, 1, &c->nenv, &c->env));
}

/* Decodes a command's "metrics", the keys its stdout may give. */
static int
msg_dec_mkeys(const msgpack_object *o, void *base)
{
	struct proto_cmd	*c = base;

	return (msg_dec_strv(o, 0, &c->nmkeys, &c->mkeys));
}

/* Decodes a command's "hooks", [prepare, setup, cleanup], -1 for none. */
static int
msg_dec_hooks(const msgpack_object *o, void *base)
{
	return (msg_dec_tuple(o, msg_hooks_tab, MSG_NITEMS(msg_hooks_tab),
	    base));
}

/*
 * Returns 1 when command c is a well-formed part of plan p: a program (a
 * hash, or a host program: an absolute path or a name without '/'), a
 * cache program's base name (no '/', neither "." nor ".."), metric keys
 * that are identifiers, and
 * hooks that name commands which are hooks themselves, not steps (hook[]
 * marks those), without hooks of their own.
 */
static int
msg_cmd_ok(const struct proto_plan *p, const struct proto_cmd *c,
    const uint8_t *hook)
{
	const struct proto_cmd	*h;
	size_t			 k;

	if ((c->exe[0] == '\0') != (c->has_host != 0))
		return (0);
	if (c->has_host && (c->host[0] == '\0' || (c->host[0] != '/' &&
	    strchr(c->host, '/') != NULL)))
		return (0);
	if (c->has_name && (c->has_host || c->name[0] == '\0' ||
	    strchr(c->name, '/') != NULL || strcmp(c->name, ".") == 0 ||
	    strcmp(c->name, "..") == 0))
		return (0);
	for (k = 0; c->has_mkeys && k < c->nmkeys; k++) {
		if (!ident_str_ok(c->mkeys[k], PROTO_NAME_MAX))
			return (0);
	}
	if (!c->has_hooks)
		return (1);
	for (k = 0; k < PROTO_NHOOKS; k++) {
		if (c->hooks[k] == -1)
			continue;
		if ((size_t)c->hooks[k] >= p->ncmds || !hook[c->hooks[k]])
			return (0);
		h = &p->cmds[c->hooks[k]];
		if (h->has_hooks && (h->hooks[0] != -1 || h->hooks[1] != -1 ||
		    h->hooks[2] != -1))
			return (0);
	}
	return (1);
}

/* Checks a sample's environment padding: at most PROTO_ENV_PAD_MAX. */
static int
msg_check_sample(const void *base)
{
	const struct proto_sample	*smp = base;

	if (smp->has_env_pad && smp->env_pad > PROTO_ENV_PAD_MAX)
		return (PROTO_ERR_FIELD);
	return (0);
}

/*
 * Checks what spans a plan's fields: every step names a command, every
 * command's program and hooks are sound, and no hook is a step.
 */
static int
msg_check_plan(const void *base)
{
	const struct proto_plan	*p = base;
	uint8_t			*hook;
	size_t			 i, j, k, nprog = 0;
	int			 r = 0;

	if (p->granted > p->nsteps ||
	    (p->has_env_pad && p->env_pad > PROTO_ENV_PAD_MAX) ||
	    (p->has_settle_ms && p->settle_ms > PROTO_SETTLE_MAX))
		return (PROTO_ERR_FIELD);
	if ((hook = calloc(p->ncmds + 1, 1)) == NULL)
		return (PROTO_ERR_NOMEM);
	for (i = 0; i < p->ncmds; i++) {
		for (k = 0; p->cmds[i].has_hooks && k < PROTO_NHOOKS; k++) {
			if (p->cmds[i].hooks[k] >= 0 &&
			    (size_t)p->cmds[i].hooks[k] < p->ncmds)
				hook[p->cmds[i].hooks[k]] = 1;
		}
	}
	/* Distinct host programs; the count stops past the limit. */
	for (i = 0; i < p->ncmds && nprog <= PROTO_PROGS_MAX; i++) {
		if (!p->cmds[i].has_host)
			continue;
		for (j = 0; j < i; j++) {
			if (p->cmds[j].has_host &&
			    strcmp(p->cmds[j].host, p->cmds[i].host) == 0)
				break;
		}
		nprog += j == i;
	}
	if (nprog > PROTO_PROGS_MAX)
		r = PROTO_ERR_FIELD;
	for (i = 0; r == 0 && i < p->nsteps; i++) {
		if (p->steps[i].cmd >= p->ncmds || hook[p->steps[i].cmd])
			r = PROTO_ERR_FIELD;
	}
	for (i = 0; r == 0 && i < p->ncmds; i++) {
		if (!msg_cmd_ok(p, &p->cmds[i], hook))
			r = PROTO_ERR_FIELD;
	}
	free(hook);
	return (r);
}

/* Decodes HELLO's "facts". */
static int
msg_dec_facts(const msgpack_object *o, void *base)
{
	struct proto_hello	*h = base;

	return (msg_dec_map(o, msg_facts_tab, MSG_NITEMS(msg_facts_tab),
	    &h->facts));
}

/* Decodes the facts' "load", three numbers. */
static int
msg_dec_load(const msgpack_object *o, void *base)
{
	return (msg_dec_tuple(o, msg_load_tab, MSG_NITEMS(msg_load_tab),
	    base));
}

/* Decodes the facts' "extra", a map of distinct names to strings. */
static int
msg_dec_extra(const msgpack_object *o, void *base)
{
	struct proto_facts	*f = base;

	return (msg_dec_names(o, msg_extra_tab, MSG_NITEMS(f->extra), f->extra,
	    sizeof *f->extra, &f->nextra));
}

/* Decodes SAMPLE's "metrics", a map of distinct names to numbers. */
static int
msg_dec_metrics(const msgpack_object *o, void *base)
{
	struct proto_sample	*s = base;

	return (msg_dec_names(o, msg_metric_tab, MSG_NITEMS(s->metrics),
	    s->metrics, sizeof *s->metrics, &s->nmetrics));
}

/* Decodes one message from authenticated plaintext. */
int
proto_decode(const uint8_t *buf, size_t len, struct proto_msg *msg)
{
	msgpack_unpacked	 up;
	const msgpack_object	*root, *t = NULL;
	const struct msg_type	*mt;
	size_t			 i, off = 0;
	int			 r;

	memset(msg, 0, sizeof *msg);
	msgpack_unpacked_init(&up);
	if (len > PROTO_FRAME_MAX) {
		r = PROTO_ERR_TOOBIG;
		goto out;
	}
	if ((r = msg_scan(buf, len)) != 0)
		goto out;
	switch (msgpack_unpack_next(&up, (const char *)buf, len, &off)) {
	case MSGPACK_UNPACK_SUCCESS:
		break;
	case MSGPACK_UNPACK_NOMEM_ERROR:
		r = PROTO_ERR_NOMEM;
		goto out;
	default:
		r = PROTO_ERR_DECODE;
		goto out;
	}
	if (off != len) {
		r = PROTO_ERR_DECODE;
		goto out;
	}
	root = &up.data;
	if (root->type != MSGPACK_OBJECT_MAP) {
		r = PROTO_ERR_DECODE;
		goto out;
	}

	for (i = 0; i < root->via.map.size; i++) {
		if (!msg_key_is(&root->via.map.ptr[i].key, "t"))
			continue;
		if (t != NULL) {
			r = PROTO_ERR_FIELD;
			goto out;
		}
		t = &root->via.map.ptr[i].val;
	}
	if (t == NULL || (t->type != MSGPACK_OBJECT_POSITIVE_INTEGER &&
	    t->type != MSGPACK_OBJECT_NEGATIVE_INTEGER)) {
		r = PROTO_ERR_FIELD;
		goto out;
	}
	if (t->type == MSGPACK_OBJECT_NEGATIVE_INTEGER ||
	    (mt = msg_type_find(t->via.u64)) == NULL) {
		r = PROTO_ERR_TYPE;
		goto out;
	}
	/* Set before anything is allocated, so proto_msg_free knows what. */
	msg->type = mt->type;
	if ((r = msg_dec_map(root, mt->tab, mt->n, &msg->u)) != 0)
		goto out;
	if (mt->check != NULL && (r = mt->check(&msg->u)) != 0)
		goto out;
	r = 0;
out:
	msgpack_unpacked_destroy(&up);
	if (r != 0) {
		proto_msg_free(msg);
		memset(msg, 0, sizeof *msg);
	}
	return (r);
}

/* ---- encoding ----------------------------------------------------------- */

/*
 * The packer's write callback: appends to a struct msg_buf. It refuses
 * every write after the first failure, so the packing calls need no checks
 * and proto_encode looks at err once at the end.
 */
static int
msg_write(void *data, const char *p, size_t n)
{
	struct msg_buf	*b = data;
	unsigned char	*nd;
	size_t		 ncap;

	if (b->err != 0)
		return (-1);
	if (n == 0)
		return (0);
	if (n > MSG_ENC_MAX - b->len) {
		b->err = PROTO_ERR_TOOBIG;
		return (-1);
	}
	if (b->len + n > b->cap) {
		ncap = b->cap == 0 ? 256 : b->cap;
		while (ncap < b->len + n)
			ncap *= 2;
		if (ncap > MSG_ENC_MAX)
			ncap = MSG_ENC_MAX;
		if ((nd = realloc(b->data, ncap)) == NULL) {
			b->err = PROTO_ERR_NOMEM;
			return (-1);
		}
		b->data = nd;
		b->cap = ncap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return (0);
}

/* Packs a C string. */
static void
msg_put_str(msgpack_packer *pk, const char *s, size_t n)
{
	msgpack_pack_str(pk, n);
	msgpack_pack_str_body(pk, s, n);
}

/* Packs a string member of size bytes, which must hold its NUL. */
static int
msg_put_fixed(msgpack_packer *pk, const char *s, size_t size)
{
	size_t	n = strnlen(s, size);

	if (n == size)
		return (PROTO_ERR_FIELD);
	msg_put_str(pk, s, n);
	return (0);
}

/* Packs one field of a table from the struct at base. */
static int
msg_enc_field(msgpack_packer *pk, const struct msg_field *f, const void *base)
{
	const unsigned char	*p = (const unsigned char *)base + f->off;
	uint64_t		 u;
	int64_t			 i;
	double			 d;
	uint32_t		 u32;
	int32_t			 i32;
	uint8_t			 u8;

	switch (f->kind) {
	case MSG_U8:
		memcpy(&u8, p, sizeof u8);
		if (u8 > f->max)
			return (PROTO_ERR_FIELD);
		msgpack_pack_uint8(pk, u8);
		return (0);
	case MSG_U32:
		memcpy(&u32, p, sizeof u32);
		msgpack_pack_uint32(pk, u32);
		return (0);
	case MSG_U64:
		memcpy(&u, p, sizeof u);
		msgpack_pack_uint64(pk, u);
		return (0);
	case MSG_I32:
	case MSG_IDX:
		memcpy(&i32, p, sizeof i32);
		if (f->kind == MSG_IDX && i32 < -1)
			return (PROTO_ERR_FIELD);
		msgpack_pack_int32(pk, i32);
		return (0);
	case MSG_I64:
		memcpy(&i, p, sizeof i);
		msgpack_pack_int64(pk, i);
		return (0);
	case MSG_F64:
		memcpy(&d, p, sizeof d);
		msgpack_pack_double(pk, d);
		return (0);
	case MSG_STR:
	case MSG_IDENT:
	case MSG_IDENT0:
	case MSG_BENCH:
		return (msg_put_fixed(pk, (const char *)p, f->size));
	case MSG_HASH:
		if (!hash_valid((const char *)p))
			return (PROTO_ERR_FIELD);
		msg_put_str(pk, (const char *)p, PROTO_SHA_HEX - 1);
		return (0);
	case MSG_HASH0:
		if (*(const char *)p == '\0') {
			msg_put_str(pk, "", 0);
			return (0);
		}
		if (!hash_valid((const char *)p))
			return (PROTO_ERR_FIELD);
		msg_put_str(pk, (const char *)p, PROTO_SHA_HEX - 1);
		return (0);
	case MSG_CKEY:
		return (msg_put_fixed(pk, (const char *)p, f->size));
	case MSG_VEC:
		return (msg_enc_vec(pk, f->vec, base));
	case MSG_SUB:
		return (f->enc(pk, base));
	}
	return (PROTO_ERR_FIELD);
}

/* Returns 1 when an optional field is marked present (or it is required). */
static int
msg_present(const struct msg_field *f, const void *base)
{
	int	has;

	if (f->has == MSG_REQ)
		return (1);
	memcpy(&has, (const unsigned char *)base + f->has, sizeof has);
	return (has != 0);
}

/* Packs a map by its table, preceded by "t" when type is not 0. */
static int
msg_enc_map(msgpack_packer *pk, const struct msg_field *tab, size_t n,
    const void *base, int type)
{
	size_t	i, count = type != 0 ? 1 : 0;
	int	r;

	for (i = 0; i < n; i++)
		count += (size_t)msg_present(&tab[i], base);
	msgpack_pack_map(pk, count);
	if (type != 0) {
		msg_put_str(pk, "t", 1);
		msgpack_pack_int(pk, type);
	}
	for (i = 0; i < n; i++) {
		if (!msg_present(&tab[i], base))
			continue;
		msg_put_str(pk, tab[i].name, strlen(tab[i].name));
		if ((r = msg_enc_field(pk, &tab[i], base)) != 0)
			return (r);
	}
	return (0);
}

/* Packs the n fields of tab from base as an array; as msg_dec_tuple reads. */
static int
msg_enc_tuple(msgpack_packer *pk, const struct msg_field *tab, size_t n,
    const void *base)
{
	size_t	i;
	int	r;

	msgpack_pack_array(pk, n);
	for (i = 0; i < n; i++) {
		if ((r = msg_enc_field(pk, &tab[i], base)) != 0)
			return (r);
	}
	return (0);
}

/* Packs the array of structs in base; as msg_dec_vec reads. */
static int
msg_enc_vec(msgpack_packer *pk, const struct msg_vec *vec, const void *base)
{
	const struct msg_any	*any;
	const unsigned char	*v;
	size_t			 i, n;
	int			 r;

	memcpy(&any, (const unsigned char *)base + vec->voff, sizeof any);
	memcpy(&n, (const unsigned char *)base + vec->noff, sizeof n);
	if (n > vec->max || (n > 0 && any == NULL))
		return (PROTO_ERR_FIELD);
	v = (const unsigned char *)any;
	msgpack_pack_array(pk, n);
	for (i = 0; i < n; i++, v += vec->size) {
		if (vec->tuple)
			r = msg_enc_tuple(pk, vec->tab, vec->n, v);
		else
			r = msg_enc_map(pk, vec->tab, vec->n, v, 0);
		if (r != 0)
			return (r);
	}
	return (0);
}

/* Packs the n names and values at v as a map; as msg_dec_names reads. */
static int
msg_enc_names(msgpack_packer *pk, const struct msg_field *tab, size_t max,
    const void *v, size_t size, size_t n)
{
	const unsigned char	*p = v;
	size_t			 i;
	int			 r;

	if (n > max)
		return (PROTO_ERR_FIELD);
	msgpack_pack_map(pk, n);
	for (i = 0; i < n; i++) {
		if ((r = msg_enc_field(pk, &tab[0], p + i * size)) != 0 ||
		    (r = msg_enc_field(pk, &tab[1], p + i * size)) != 0)
			return (r);
	}
	return (0);
}

/* Packs an array of hashes. */
static int
msg_enc_hashv(msgpack_packer *pk, size_t n, const char (*v)[PROTO_SHA_HEX])
{
	size_t	i;

	if (n > 0 && v == NULL)
		return (PROTO_ERR_FIELD);
	msgpack_pack_array(pk, n);
	for (i = 0; i < n; i++) {
		if (!hash_valid(v[i]))
			return (PROTO_ERR_FIELD);
		msg_put_str(pk, v[i], PROTO_SHA_HEX - 1);
	}
	return (0);
}

/* Packs QUERY's and HAVE's "sha". */
static int
msg_enc_sha(msgpack_packer *pk, const void *base)
{
	const struct proto_hashes	*h = base;

	return (msg_enc_hashv(pk, h->n, (const char (*)[PROTO_SHA_HEX])h->sha));
}

/* Packs PLAN's "files". */
static int
msg_enc_files(msgpack_packer *pk, const void *base)
{
	const struct proto_plan	*p = base;

	return (msg_enc_hashv(pk, p->nfiles,
	    (const char (*)[PROTO_SHA_HEX])p->files));
}

/* Packs an array of strings; as msg_dec_strv checks. */
static int
msg_enc_strv(msgpack_packer *pk, int env, size_t n, char *const *v)
{
	const char	*eq;
	size_t		 i;

	if (n > PROTO_ARGS_MAX || (n > 0 && v == NULL))
		return (PROTO_ERR_FIELD);
	msgpack_pack_array(pk, n);
	for (i = 0; i < n; i++) {
		if (v[i] == NULL)
			return (PROTO_ERR_FIELD);
		if (env && ((eq = strchr(v[i], '=')) == NULL || eq == v[i]))
			return (PROTO_ERR_FIELD);
		msg_put_str(pk, v[i], strlen(v[i]));
	}
	return (0);
}

/* Packs a command's "args". */
static int
msg_enc_args(msgpack_packer *pk, const void *base)
{
	const struct proto_cmd	*c = base;

	return (msg_enc_strv(pk, 0, c->nargs, c->args));
}

/* Packs a command's "env". */
static int
msg_enc_env(msgpack_packer *pk, const void *base)
{
	const struct proto_cmd	*c = base;

	return (msg_enc_strv(pk, 1, c->nenv, c->env));
}

/* Packs a command's "metrics". */
static int
msg_enc_mkeys(msgpack_packer *pk, const void *base)
{
	const struct proto_cmd	*c = base;

	return (msg_enc_strv(pk, 0, c->nmkeys, c->mkeys));
}

/* Packs a command's "hooks". */
static int
msg_enc_hooks(msgpack_packer *pk, const void *base)
{
	return (msg_enc_tuple(pk, msg_hooks_tab, MSG_NITEMS(msg_hooks_tab),
	    base));
}

/* Packs HELLO's "facts". */
static int
msg_enc_facts(msgpack_packer *pk, const void *base)
{
	const struct proto_hello	*h = base;

	return (msg_enc_map(pk, msg_facts_tab, MSG_NITEMS(msg_facts_tab),
	    &h->facts, 0));
}

/* Packs the facts' "load". */
static int
msg_enc_load(msgpack_packer *pk, const void *base)
{
	return (msg_enc_tuple(pk, msg_load_tab, MSG_NITEMS(msg_load_tab),
	    base));
}

/* Packs the facts' "extra". */
static int
msg_enc_extra(msgpack_packer *pk, const void *base)
{
	const struct proto_facts	*f = base;

	return (msg_enc_names(pk, msg_extra_tab, MSG_NITEMS(f->extra),
	    f->extra, sizeof *f->extra, f->nextra));
}

/* Packs SAMPLE's "metrics". */
static int
msg_enc_metrics(msgpack_packer *pk, const void *base)
{
	const struct proto_sample	*s = base;

	return (msg_enc_names(pk, msg_metric_tab, MSG_NITEMS(s->metrics),
	    s->metrics, sizeof *s->metrics, s->nmetrics));
}

/* Encodes msg as a msgpack map into a new buffer. */
int
proto_encode(const struct proto_msg *msg, uint8_t **out, size_t *outlen)
{
	const struct msg_type	*mt;
	struct msg_buf		 b;
	msgpack_packer		 pk;
	int			 r;

	*out = NULL;
	*outlen = 0;
	memset(&b, 0, sizeof b);
	if ((mt = msg_type_find((uint64_t)msg->type)) == NULL) {
		r = PROTO_ERR_TYPE;
		goto out;
	}
	if (mt->check != NULL && (r = mt->check(&msg->u)) != 0)
		goto out;
	msgpack_packer_init(&pk, &b, msg_write);
	if ((r = msg_enc_map(&pk, mt->tab, mt->n, &msg->u, (int)mt->type)) != 0)
		goto out;
	if ((r = b.err) != 0)
		goto out;
	*out = b.data;
	*outlen = b.len;
	b.data = NULL;
	r = 0;
out:
	free(b.data);
	return (r);
}

/* ---- the rest ----------------------------------------------------------- */

/* Frees the arrays inside a message and leaves them empty. */
void
proto_msg_free(struct proto_msg *msg)
{
	struct proto_plan	*p;
	struct proto_cmd	*c;
	size_t			 i, j;

	if (msg == NULL)
		return;
	switch (msg->type) {
	case PROTO_QUERY:
	case PROTO_HAVE:
		free(msg->u.hashes.sha);
		msg->u.hashes.sha = NULL;
		msg->u.hashes.n = 0;
		break;
	case PROTO_PLAN:
		p = &msg->u.plan;
		free(p->files);
		p->files = NULL;
		p->nfiles = 0;
		for (i = 0; p->cmds != NULL && i < p->ncmds; i++) {
			c = &p->cmds[i];
			for (j = 0; c->args != NULL && j < c->nargs; j++)
				free(c->args[j]);
			free(c->args);
			for (j = 0; c->env != NULL && j < c->nenv; j++)
				free(c->env[j]);
			free(c->env);
			for (j = 0; c->mkeys != NULL && j < c->nmkeys; j++)
				free(c->mkeys[j]);
			free(c->mkeys);
		}
		free(p->cmds);
		p->cmds = NULL;
		p->ncmds = 0;
		free(p->steps);
		p->steps = NULL;
		p->nsteps = 0;
		break;
	case PROTO_PROGS:
		free(msg->u.progs.v);
		msg->u.progs.v = NULL;
		msg->u.progs.n = 0;
		break;
	default:
		break;
	}
}

/* Returns the words for a PROTO_ERR_* code. */
const char *
proto_strerror(int code)
{
	switch (code) {
	case PROTO_OK:
		return ("success");
	case PROTO_ERR_NOMEM:
		return ("out of memory");
	case PROTO_ERR_SHORT:
		return ("frame too short");
	case PROTO_ERR_TOOBIG:
		return ("frame or message too big");
	case PROTO_ERR_MAGIC:
		return ("not an orch frame");
	case PROTO_ERR_VERSION:
		return ("peer speaks another protocol version");
	case PROTO_ERR_DIRECTION:
		return ("frame sealed for the other direction");
	case PROTO_ERR_RUN:
		return ("frame of another run");
	case PROTO_ERR_REPLAY:
		return ("frame replayed or out of order");
	case PROTO_ERR_TAG:
		return ("frame failed authentication");
	case PROTO_ERR_CRYPTO:
		return ("crypto library failure");
	case PROTO_ERR_DECODE:
		return ("message is not valid msgpack");
	case PROTO_ERR_FIELD:
		return ("message field missing, mistyped or out of range");
	case PROTO_ERR_TYPE:
		return ("unknown message type");
	default:
		return ("unknown error");
	}
}

/* Returns the name of a message type, or "unknown". */
const char *
proto_type_name(int type)
{
	const struct msg_type	*mt;

	if (type <= 0 || (mt = msg_type_find((uint64_t)type)) == NULL)
		return ("unknown");
	return (mt->name);
}

/* Returns the name of a sample status, or "unknown". */
const char *
proto_status_name(int status)
{
	switch (status) {
	case PROTO_ST_OK:
		return ("ok");
	case PROTO_ST_FAILED:
		return ("failed");
	case PROTO_ST_TIMEOUT:
		return ("timeout");
	case PROTO_ST_SIGNAL:
		return ("signal");
	default:
		return ("unknown");
	}
}
