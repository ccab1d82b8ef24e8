/* Unit tests of proto/: sealed frames (seal.c) and messages (msg.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <msgpack.h>

#include "proto/hash.h"
#include "proto/proto.h"
#include "proto/seal.h"

#define RUN_ID	"run-20240501.a_b"

/* ---- helpers ------------------------------------------------------------ */

/* A fixed key: bytes 0, 1, ..., 31 plus off. */
static void
test_key(uint8_t key[PROTO_KEY_LEN], int off)
{
	int	i;

	for (i = 0; i < PROTO_KEY_LEN; i++)
		key[i] = (uint8_t)(i + off);
}

/* Sets up a coordinator and an agent sharing one key and run id. */
static void
test_pair(struct seal *coord, struct seal *agent)
{
	uint8_t	key[PROTO_KEY_LEN];

	test_key(key, 0);
	assert_int_equal(seal_init(coord, key, RUN_ID, 0), 0);
	assert_int_equal(seal_init(agent, key, RUN_ID, 1), 0);
}

/* A valid hash derived from n. */
static void
test_hash(char hex[PROTO_SHA_HEX], int n)
{
	assert_int_equal(hash_buf(&n, sizeof n, hex), 0);
}

static char *
test_strdup(const char *s)
{
	char	*p = strdup(s);

	assert_non_null(p);
	return (p);
}

/* Encodes m, decodes the result into out, and checks the type. */
static void
test_roundtrip(const struct proto_msg *m, struct proto_msg *out)
{
	uint8_t	*buf;
	size_t	 len;

	assert_int_equal(proto_encode(m, &buf, &len), 0);
	assert_true(len > 0);
	assert_int_equal(proto_decode(buf, len, out), 0);
	assert_int_equal(out->type, m->type);
	free(buf);
}

static void
make_hello(struct proto_msg *m, int facts)
{
	struct proto_facts	*f = &m->u.hello.facts;

	memset(m, 0, sizeof *m);
	m->type = PROTO_HELLO;
	m->u.hello.proto = PROTO_VERSION;
	strcpy(m->u.hello.version, "0.1.0");
	strcpy(m->u.hello.run_id, RUN_ID);
	if (!facts)
		return;
	m->u.hello.has_facts = 1;
	strcpy(f->os, "linux");
	strcpy(f->arch, "x86_64");
	strcpy(f->cpu_model, "AMD EPYC 9654 96-Core Processor");
	strcpy(f->kernel, "6.1.0-18-amd64");
	strcpy(f->hostname, "epyc");
	strcpy(f->workdir, "/home/bench/.orch");
	/* Since protocol 8: the machine's hash, the workdir's identity. */
	memset(f->machine, 'e', PROTO_SHA_HEX - 1);
	f->workdir_dev = 2049;
	f->workdir_ino = 5242881;
	m->u.hello.has_host = 1;
	strcpy(m->u.hello.host, "epyc-1");
	f->cores = 192;
	f->mem_kb = 792723456ULL;
	f->load[0] = 0.25;
	f->load[1] = 1.5;
	f->load[2] = 12.125;
	f->nextra = 2;
	strcpy(f->extra[0].key, "governor");
	strcpy(f->extra[0].value, "performance");
	strcpy(f->extra[1].key, "smt");
	strcpy(f->extra[1].value, "");
}

static void
check_hello(const struct proto_msg *a, const struct proto_msg *b)
{
	const struct proto_facts	*x = &a->u.hello.facts, *y = &b->u.hello.facts;
	size_t				 i;

	assert_int_equal(b->u.hello.proto, a->u.hello.proto);
	assert_string_equal(b->u.hello.version, a->u.hello.version);
	assert_string_equal(b->u.hello.run_id, a->u.hello.run_id);
	assert_int_equal(b->u.hello.has_facts, a->u.hello.has_facts);
	if (!a->u.hello.has_facts)
		return;
	assert_string_equal(y->os, x->os);
	assert_string_equal(y->arch, x->arch);
	assert_string_equal(y->cpu_model, x->cpu_model);
	assert_string_equal(y->kernel, x->kernel);
	assert_string_equal(y->hostname, x->hostname);
	assert_string_equal(y->workdir, x->workdir);
	assert_int_equal(y->cores, x->cores);
	assert_int_equal(y->mem_kb, x->mem_kb);
	for (i = 0; i < 3; i++)
		assert_true(y->load[i] == x->load[i]);
	assert_int_equal(y->nextra, x->nextra);
	for (i = 0; i < x->nextra; i++) {
		assert_string_equal(y->extra[i].key, x->extra[i].key);
		assert_string_equal(y->extra[i].value, x->extra[i].value);
	}
}

static void
make_plan(struct proto_msg *m)
{
	struct proto_plan	*p = &m->u.plan;
	struct proto_cmd	*c;
	size_t			 i;

	memset(m, 0, sizeof *m);
	m->type = PROTO_PLAN;
	p->nfiles = 3;
	p->files = calloc(p->nfiles, sizeof *p->files);
	assert_non_null(p->files);
	for (i = 0; i < p->nfiles; i++)
		test_hash(p->files[i], (int)i);
	p->ncmds = 2;
	p->cmds = calloc(p->ncmds, sizeof *p->cmds);
	assert_non_null(p->cmds);
	for (i = 0; i < p->ncmds; i++) {
		c = &p->cmds[i];
		strcpy(c->bench, "hash");
		strcpy(c->variant, i == 0 ? "A" : "B");
		strcpy(c->exe, p->files[i]);
		c->timeout_ms = 30000 + (uint32_t)i;
		strcpy(c->checksum_key, i == 0 ? "checksum" : "");
	}
	c = &p->cmds[0];
	c->nargs = 3;
	c->args = calloc(c->nargs, sizeof *c->args);
	assert_non_null(c->args);
	c->args[0] = test_strdup("2000000");
	c->args[1] = test_strdup("cache/data with space");
	c->args[2] = test_strdup("");
	c->nenv = 2;
	c->env = calloc(c->nenv, sizeof *c->env);
	assert_non_null(c->env);
	c->env[0] = test_strdup("HASHLOOP_EXTRA=10");
	c->env[1] = test_strdup("EMPTY=");
	c->has_name = 1;
	strcpy(c->name, "xzcat");
	c->has_mkeys = 1;
	c->nmkeys = 2;
	c->mkeys = calloc(c->nmkeys, sizeof *c->mkeys);
	assert_non_null(c->mkeys);
	c->mkeys[0] = test_strdup("elapsed_ns");
	c->mkeys[1] = test_strdup("ops");
	p->cmds[1].has_mkeys = 1;	/* none read */
	p->nsteps = 4;
	p->steps = calloc(p->nsteps, sizeof *p->steps);
	assert_non_null(p->steps);
	p->steps[0] = (struct proto_step){ 0, 0, 1 };
	p->steps[1] = (struct proto_step){ 1, 0, 1 };
	p->steps[2] = (struct proto_step){ 1, 1, 0 };
	p->steps[3] = (struct proto_step){ 0, 4294967295U, 0 };
	p->max_load = 0.33;
	p->load_wait_ms = 600000;
	p->retries = 2;
	strcpy(p->pin, "2,3");
	strcpy(p->counters, "instructions,cycles");
	p->resume_seq = 41;
	p->linger_ms = 3600000;
	p->granted = 1;
}

static void
check_plan(const struct proto_msg *a, const struct proto_msg *b)
{
	const struct proto_plan	*x = &a->u.plan, *y = &b->u.plan;
	size_t			 i, j;

	assert_int_equal(y->nfiles, x->nfiles);
	for (i = 0; i < x->nfiles; i++)
		assert_string_equal(y->files[i], x->files[i]);
	assert_int_equal(y->ncmds, x->ncmds);
	for (i = 0; i < x->ncmds; i++) {
		assert_string_equal(y->cmds[i].bench, x->cmds[i].bench);
		assert_string_equal(y->cmds[i].variant, x->cmds[i].variant);
		assert_string_equal(y->cmds[i].exe, x->cmds[i].exe);
		assert_int_equal(y->cmds[i].nargs, x->cmds[i].nargs);
		for (j = 0; j < x->cmds[i].nargs; j++)
			assert_string_equal(y->cmds[i].args[j], x->cmds[i].args[j]);
		assert_int_equal(y->cmds[i].nenv, x->cmds[i].nenv);
		for (j = 0; j < x->cmds[i].nenv; j++)
			assert_string_equal(y->cmds[i].env[j], x->cmds[i].env[j]);
		assert_int_equal(y->cmds[i].timeout_ms, x->cmds[i].timeout_ms);
		assert_string_equal(y->cmds[i].checksum_key,
		    x->cmds[i].checksum_key);
		assert_int_equal(y->cmds[i].has_name, x->cmds[i].has_name);
		assert_string_equal(y->cmds[i].name, x->cmds[i].name);
		assert_int_equal(y->cmds[i].has_mkeys, x->cmds[i].has_mkeys);
		assert_int_equal(y->cmds[i].nmkeys, x->cmds[i].nmkeys);
		for (j = 0; j < x->cmds[i].nmkeys; j++)
			assert_string_equal(y->cmds[i].mkeys[j],
			    x->cmds[i].mkeys[j]);
	}
	assert_int_equal(y->nsteps, x->nsteps);
	for (i = 0; i < x->nsteps; i++) {
		assert_int_equal(y->steps[i].cmd, x->steps[i].cmd);
		assert_int_equal(y->steps[i].round, x->steps[i].round);
		assert_int_equal(y->steps[i].warmup, x->steps[i].warmup);
	}
	assert_true(y->max_load == x->max_load);
	assert_int_equal(y->load_wait_ms, x->load_wait_ms);
	assert_int_equal(y->retries, x->retries);
	assert_string_equal(y->pin, x->pin);
	assert_string_equal(y->counters, x->counters);
	assert_int_equal(y->resume_seq, x->resume_seq);
	assert_int_equal(y->linger_ms, x->linger_ms);
	assert_int_equal(y->granted, x->granted);
	assert_int_equal(y->has_env_pad, x->has_env_pad);
	assert_int_equal(y->env_pad, x->env_pad);
	assert_true(y->env_pad_seed == x->env_pad_seed);
	assert_int_equal(y->has_settle_ms, x->has_settle_ms);
	assert_int_equal(y->settle_ms, x->settle_ms);
}

static void
make_sample(struct proto_msg *m, int checksum)
{
	struct proto_sample	*s = &m->u.sample;

	memset(m, 0, sizeof *m);
	m->type = PROTO_SAMPLE;
	s->seq = 17;
	s->step = 18;
	s->cmd = 1;
	s->round = 9;
	s->attempt = 2;
	s->warmup = 1;
	s->status = PROTO_ST_SIGNAL;
	s->exit_code = -2147483647 - 1;
	s->signal = 9;
	s->wall_ns = 18446744073709551615ULL;
	s->user_ns = 1234567890123ULL;
	s->sys_ns = 0;
	s->maxrss_kb = 65536;
	s->nvcsw = 3;
	s->nivcsw = 300;
	s->load1 = 0.0625;
	s->start_ns = -1714560000123456789LL;
	s->nmetrics = 3;
	strcpy(s->metrics[0].key, "elapsed_ns");
	s->metrics[0].value = 123456789.0;
	strcpy(s->metrics[1].key, "calls_per_s");
	s->metrics[1].value = -0.5;
	strcpy(s->metrics[2].key, "zero");
	s->metrics[2].value = 0.0;
	if (checksum) {
		s->has_checksum = 1;
		strcpy(s->checksum, "9f86d081884c7d65");
	}
	strcpy(s->err_tail, "segfault\nline two\n");
}

static void
check_sample(const struct proto_msg *a, const struct proto_msg *b)
{
	const struct proto_sample	*x = &a->u.sample, *y = &b->u.sample;
	size_t				 i;

	assert_int_equal(y->seq, x->seq);
	assert_int_equal(y->step, x->step);
	assert_int_equal(y->cmd, x->cmd);
	assert_int_equal(y->round, x->round);
	assert_int_equal(y->attempt, x->attempt);
	assert_int_equal(y->warmup, x->warmup);
	assert_int_equal(y->status, x->status);
	assert_int_equal(y->exit_code, x->exit_code);
	assert_int_equal(y->signal, x->signal);
	assert_true(y->wall_ns == x->wall_ns);
	assert_true(y->user_ns == x->user_ns);
	assert_true(y->sys_ns == x->sys_ns);
	assert_true(y->maxrss_kb == x->maxrss_kb);
	assert_true(y->nvcsw == x->nvcsw);
	assert_true(y->nivcsw == x->nivcsw);
	assert_true(y->load1 == x->load1);
	assert_true(y->start_ns == x->start_ns);
	assert_int_equal(y->nmetrics, x->nmetrics);
	for (i = 0; i < x->nmetrics; i++) {
		assert_string_equal(y->metrics[i].key, x->metrics[i].key);
		assert_true(y->metrics[i].value == x->metrics[i].value);
	}
	assert_int_equal(y->has_checksum, x->has_checksum);
	if (x->has_checksum)
		assert_string_equal(y->checksum, x->checksum);
	else
		assert_string_equal(y->checksum, "");
	assert_string_equal(y->err_tail, x->err_tail);
	assert_int_equal(y->has_env_pad, x->has_env_pad);
	if (x->has_env_pad)
		assert_int_equal(y->env_pad, x->env_pad);
}

/* Encodes m, then sets top-level key to what put packs (NULL: removes it). */
static void
test_edit(const struct proto_msg *m, const char *key,
    void (*put)(msgpack_packer *, const void *), const void *arg,
    msgpack_sbuffer *sb)
{
	msgpack_unpacked	 up;
	msgpack_packer		 pk;
	msgpack_object_kv	*kv;
	uint8_t			*buf;
	size_t			 len, off = 0, i, n;
	int			 found = 0;

	assert_int_equal(proto_encode(m, &buf, &len), 0);
	msgpack_unpacked_init(&up);
	assert_int_equal(msgpack_unpack_next(&up, (const char *)buf, len, &off),
	    MSGPACK_UNPACK_SUCCESS);
	assert_int_equal(up.data.type, MSGPACK_OBJECT_MAP);
	msgpack_sbuffer_init(sb);
	msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
	n = up.data.via.map.size;
	for (i = 0; i < n; i++) {
		kv = &up.data.via.map.ptr[i];
		if (kv->key.via.str.size == strlen(key) &&
		    memcmp(kv->key.via.str.ptr, key, strlen(key)) == 0)
			found = 1;
	}
	if (found && put == NULL)
		n--;
	else if (!found)
		n++;
	msgpack_pack_map(&pk, n);
	for (i = 0; i < up.data.via.map.size; i++) {
		kv = &up.data.via.map.ptr[i];
		if (kv->key.via.str.size == strlen(key) &&
		    memcmp(kv->key.via.str.ptr, key, strlen(key)) == 0) {
			if (put != NULL) {
				msgpack_pack_object(&pk, kv->key);
				put(&pk, arg);
			}
			continue;
		}
		msgpack_pack_object(&pk, kv->key);
		msgpack_pack_object(&pk, kv->val);
	}
	if (!found) {
		msgpack_pack_str_with_body(&pk, key, strlen(key));
		put(&pk, arg);
	}
	msgpack_unpacked_destroy(&up);
	free(buf);
}

/* Edits m as test_edit does and checks what proto_decode says. */
static void
test_edit_decode(const struct proto_msg *m, const char *key,
    void (*put)(msgpack_packer *, const void *), const void *arg, int want)
{
	msgpack_sbuffer		sb;
	struct proto_msg	out;

	test_edit(m, key, put, arg, &sb);
	assert_int_equal(proto_decode((const uint8_t *)sb.data, sb.size, &out),
	    want);
	if (want == 0)
		proto_msg_free(&out);
	else
		assert_int_equal(out.type, 0);
	msgpack_sbuffer_destroy(&sb);
}

static void
put_str(msgpack_packer *pk, const void *arg)
{
	msgpack_pack_str_with_body(pk, arg, strlen(arg));
}

/* Packs a string of *arg 'x' characters. */
static void
put_xs(msgpack_packer *pk, const void *arg)
{
	size_t	 n = *(const size_t *)arg;
	char	*s = malloc(n + 1);

	assert_non_null(s);
	memset(s, 'x', n);
	msgpack_pack_str_with_body(pk, s, n);
	free(s);
}

static void
put_str_nul(msgpack_packer *pk, const void *arg)
{
	(void)arg;
	msgpack_pack_str_with_body(pk, "ab\0cd", 5);
}

static void
put_uint(msgpack_packer *pk, const void *arg)
{
	msgpack_pack_uint64(pk, *(const uint64_t *)arg);
}

static void
put_int(msgpack_packer *pk, const void *arg)
{
	msgpack_pack_int64(pk, *(const int64_t *)arg);
}

static void
put_float(msgpack_packer *pk, const void *arg)
{
	msgpack_pack_double(pk, *(const double *)arg);
}

static void
put_float32(msgpack_packer *pk, const void *arg)
{
	msgpack_pack_float(pk, (float)*(const double *)arg);
}

static void
put_nil(msgpack_packer *pk, const void *arg)
{
	(void)arg;
	msgpack_pack_nil(pk);
}

static void
put_empty_array(msgpack_packer *pk, const void *arg)
{
	(void)arg;
	msgpack_pack_array(pk, 0);
}

/* Packs an array of one string, *arg. */
static void
put_str_array(msgpack_packer *pk, const void *arg)
{
	msgpack_pack_array(pk, 1);
	put_str(pk, arg);
}

/* Packs steps of one entry, the *arg[0] elements of arg[1..]. */
static void
put_steps(msgpack_packer *pk, const void *arg)
{
	const uint64_t	*v = arg;
	uint64_t	 i;

	msgpack_pack_array(pk, 1);
	msgpack_pack_array(pk, v[0]);
	for (i = 0; i < v[0]; i++)
		msgpack_pack_uint64(pk, v[i + 1]);
}

/* Packs a metrics map of *arg distinct entries; -1: two entries "a". */
static void
put_metrics(msgpack_packer *pk, const void *arg)
{
	int	n = *(const int *)arg, i;
	char	key[32];

	if (n == -1) {
		msgpack_pack_map(pk, 2);
		put_str(pk, "a");
		msgpack_pack_double(pk, 1.0);
		put_str(pk, "a");
		msgpack_pack_double(pk, 2.0);
		return;
	}
	msgpack_pack_map(pk, (size_t)n);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof key, "m%d", i);
		put_str(pk, key);
		msgpack_pack_double(pk, i);
	}
}

struct cmd_spec {
	const char	*exe;
	size_t		 nargs;
	const char	*env;
};

/* Packs cmds of one command built from a struct cmd_spec. */
static void
put_cmds(msgpack_packer *pk, const void *arg)
{
	const struct cmd_spec	*cs = arg;
	size_t			 i;

	msgpack_pack_array(pk, 1);
	msgpack_pack_map(pk, 7);
	put_str(pk, "bench");
	put_str(pk, "b");
	put_str(pk, "variant");
	put_str(pk, "A");
	put_str(pk, "exe");
	put_str(pk, cs->exe);
	put_str(pk, "args");
	msgpack_pack_array(pk, cs->nargs);
	for (i = 0; i < cs->nargs; i++)
		put_str(pk, "a");
	put_str(pk, "env");
	msgpack_pack_array(pk, 1);
	put_str(pk, cs->env);
	put_str(pk, "timeout_ms");
	msgpack_pack_uint32(pk, 0);
	put_str(pk, "checksum_key");
	put_str(pk, "");
}

/* Packs facts with *arg extra entries. */
static void
put_facts(msgpack_packer *pk, const void *arg)
{
	size_t	n = *(const size_t *)arg, i;
	char	key[32];

	msgpack_pack_map(pk, 13);
	put_str(pk, "os"); put_str(pk, "linux");
	put_str(pk, "arch"); put_str(pk, "x86_64");
	put_str(pk, "cpu_model"); put_str(pk, "cpu");
	put_str(pk, "kernel"); put_str(pk, "6.1");
	put_str(pk, "hostname"); put_str(pk, "h");
	put_str(pk, "workdir"); put_str(pk, "/w");
	put_str(pk, "machine"); put_str(pk, "");
	put_str(pk, "workdir_dev"); msgpack_pack_uint64(pk, 2049);
	put_str(pk, "workdir_ino"); msgpack_pack_uint64(pk, 1234567);
	put_str(pk, "cores"); msgpack_pack_uint32(pk, 2);
	put_str(pk, "mem_kb"); msgpack_pack_uint64(pk, 1024);
	put_str(pk, "load");
	msgpack_pack_array(pk, 3);
	msgpack_pack_double(pk, 0.5);
	msgpack_pack_float(pk, 0.25f);
	msgpack_pack_uint32(pk, 1);
	put_str(pk, "extra");
	msgpack_pack_map(pk, n);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof key, "k%zu", i);
		put_str(pk, key);
		put_str(pk, "v");
	}
}

/* Packs *arg nested arrays around the integer 1. */
static void
put_nested(msgpack_packer *pk, const void *arg)
{
	int	n = *(const int *)arg, i;

	for (i = 0; i < n; i++)
		msgpack_pack_array(pk, 1);
	msgpack_pack_int(pk, 1);
}

/* ---- sealing ------------------------------------------------------------ */

static void
test_seal_runtag(void **state)
{
	static const uint8_t	want[PROTO_RUNTAG_LEN] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
		0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23
	};
	uint8_t			tag[PROTO_RUNTAG_LEN];

	(void)state;
	seal_runtag("abc", tag);	/* SHA-256("abc") = ba7816bf... */
	assert_memory_equal(tag, want, sizeof want);
}

static void
test_seal_init(void **state)
{
	struct seal	c, a;

	(void)state;
	test_pair(&c, &a);
	assert_int_equal(c.send_dir, SEAL_DIR_TO_AGENT);
	assert_int_equal(c.recv_dir, SEAL_DIR_TO_COORD);
	assert_int_equal(a.send_dir, SEAL_DIR_TO_COORD);
	assert_int_equal(a.recv_dir, SEAL_DIR_TO_AGENT);
	assert_int_equal(c.send_seq, 0);
	assert_int_equal(c.recv_seq, 0);
	assert_int_equal(c.key[31], 31);
	seal_clear(&c);
	assert_int_equal(c.key[31], 0);
	assert_int_equal(c.key[1], 0);
	seal_clear(NULL);
}

static void
test_seal_keygen(void **state)
{
	uint8_t	k1[PROTO_KEY_LEN], k2[PROTO_KEY_LEN], zero[PROTO_KEY_LEN];

	(void)state;
	memset(zero, 0, sizeof zero);
	assert_int_equal(seal_keygen(k1), 0);
	assert_int_equal(seal_keygen(k2), 0);
	assert_memory_not_equal(k1, k2, sizeof k1);
	assert_memory_not_equal(k1, zero, sizeof k1);
}

static void
test_seal_roundtrip(void **state)
{
	struct seal	 c, a;
	const char	*msgs[] = { "hello agent", "", "second" };
	uint8_t		*f, *pt;
	size_t		 flen, ptlen, i;
	uint8_t		 tag[PROTO_RUNTAG_LEN];

	(void)state;
	test_pair(&c, &a);
	seal_runtag(RUN_ID, tag);
	/* Coordinator to agent. */
	for (i = 0; i < 3; i++) {
		assert_int_equal(seal_frame(&c, (const uint8_t *)msgs[i],
		    strlen(msgs[i]), &f, &flen), 0);
		assert_int_equal(flen, SEAL_OVERHEAD + strlen(msgs[i]));
		assert_int_equal(c.send_seq, i + 1);
		assert_int_equal(f[0], 'O');
		assert_int_equal(f[1], 'R');
		assert_int_equal(f[2], PROTO_VERSION);
		assert_int_equal(f[3], SEAL_DIR_TO_AGENT);
		assert_memory_equal(f + 4, tag, sizeof tag);
		assert_int_equal(f[20] | f[21] | f[22] | f[23] | f[24] |
		    f[25] | f[26], 0);
		assert_int_equal(f[27], i + 1);
		assert_int_equal(f[28], 0);
		assert_int_equal(f[29], 0);
		assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), 0);
		assert_int_equal(ptlen, strlen(msgs[i]));
		assert_memory_equal(pt, msgs[i], ptlen);
		assert_int_equal(a.recv_seq, i + 1);
		free(pt);
		free(f);
	}
	/* Agent to coordinator. */
	assert_int_equal(seal_frame(&a, (const uint8_t *)"result", 6, &f,
	    &flen), 0);
	assert_int_equal(f[3], SEAL_DIR_TO_COORD);
	assert_int_equal(f[27], 1);
	assert_int_equal(seal_open(&c, f, flen, &pt, &ptlen), 0);
	assert_int_equal(ptlen, 6);
	assert_memory_equal(pt, "result", 6);
	assert_int_equal(c.recv_seq, 1);
	free(pt);
	free(f);
}

static void
test_seal_plaintext_hidden(void **state)
{
	struct seal	 c, a;
	const char	*secret = "ORCH-SECRET-PAYLOAD";
	uint8_t		*f1, *f2;
	size_t		 l1, l2;

	(void)state;
	test_pair(&c, &a);
	assert_int_equal(seal_frame(&c, (const uint8_t *)secret,
	    strlen(secret), &f1, &l1), 0);
	assert_int_equal(seal_frame(&c, (const uint8_t *)secret,
	    strlen(secret), &f2, &l2), 0);
	assert_memory_not_equal(f1 + SEAL_HDR_LEN, secret, strlen(secret));
	/* Same plaintext, next nonce: different ciphertext. */
	assert_memory_not_equal(f1 + SEAL_HDR_LEN, f2 + SEAL_HDR_LEN,
	    strlen(secret));
	free(f1);
	free(f2);
}

/* Flips bits of byte idx of a fresh frame and checks the error. */
static void
tamper_one(size_t idx, uint8_t mask, int want)
{
	struct seal	 c, a, before;
	uint8_t		*f, *pt = (uint8_t *)"x";
	size_t		 flen, ptlen = 7;

	test_pair(&c, &a);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"payload", 7, &f,
	    &flen), 0);
	before = a;
	f[idx] ^= mask;
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), want);
	assert_null(pt);
	assert_int_equal(ptlen, 0);
	if (want != PROTO_ERR_VERSION)
		assert_memory_equal(&a, &before, sizeof a);
	/* The genuine frame still opens: nothing advanced. */
	f[idx] ^= mask;
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), 0);
	assert_int_equal(ptlen, 7);
	assert_memory_equal(pt, "payload", 7);
	free(pt);
	free(f);
}

static void
test_seal_tamper_header(void **state)
{
	size_t	i;

	(void)state;
	tamper_one(0, 0x01, PROTO_ERR_MAGIC);
	tamper_one(1, 0x20, PROTO_ERR_MAGIC);
	tamper_one(2, 0x02, PROTO_ERR_VERSION);
	tamper_one(3, 0x80, PROTO_ERR_DIRECTION);
	for (i = 4; i < 20; i++)
		tamper_one(i, 0x10, PROTO_ERR_RUN);
	/* A larger sequence passes the order check, then fails the tag. */
	for (i = 20; i < 28; i++)
		tamper_one(i, 0x80, PROTO_ERR_TAG);
	/* Sequence 1 -> 0: not after the last accepted (0). */
	tamper_one(27, 0x01, PROTO_ERR_REPLAY);
	tamper_one(28, 0x01, PROTO_ERR_TAG);
	tamper_one(29, 0xff, PROTO_ERR_TAG);
}

static void
test_seal_tamper_body(void **state)
{
	size_t	i;

	(void)state;
	for (i = SEAL_HDR_LEN; i < SEAL_HDR_LEN + 7; i++)
		tamper_one(i, 0x01, PROTO_ERR_TAG);
	for (i = SEAL_HDR_LEN + 7; i < SEAL_OVERHEAD + 7; i++)
		tamper_one(i, 0x40, PROTO_ERR_TAG);
}

static void
test_seal_replay(void **state)
{
	struct seal	 c, a;
	uint8_t		*f, *pt;
	size_t		 flen, ptlen;

	(void)state;
	test_pair(&c, &a);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"run it", 6, &f,
	    &flen), 0);
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), 0);
	free(pt);
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen),
	    PROTO_ERR_REPLAY);
	assert_null(pt);
	assert_int_equal(a.recv_seq, 1);
	free(f);
}

static void
test_seal_reorder(void **state)
{
	struct seal	 c, a;
	uint8_t		*f1, *f2, *f3, *pt;
	size_t		 l1, l2, l3, ptlen;

	(void)state;
	test_pair(&c, &a);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"one", 3, &f1, &l1), 0);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"two", 3, &f2, &l2), 0);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"three", 5, &f3,
	    &l3), 0);
	/* A gap is fine (a frame may be lost); going back is not. */
	assert_int_equal(seal_open(&a, f2, l2, &pt, &ptlen), 0);
	assert_memory_equal(pt, "two", 3);
	free(pt);
	assert_int_equal(seal_open(&a, f1, l1, &pt, &ptlen), PROTO_ERR_REPLAY);
	assert_int_equal(a.recv_seq, 2);
	assert_int_equal(seal_open(&a, f3, l3, &pt, &ptlen), 0);
	assert_memory_equal(pt, "three", 5);
	assert_int_equal(a.recv_seq, 3);
	free(pt);
	free(f1);
	free(f2);
	free(f3);
}

static void
test_seal_truncated(void **state)
{
	struct seal	 c, a;
	uint8_t		*f, *pt;
	size_t		 flen, ptlen, n;
	int		 r;

	(void)state;
	test_pair(&c, &a);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"truncate me", 11, &f,
	    &flen), 0);
	for (n = 0; n < flen; n++) {
		r = seal_open(&a, f, n, &pt, &ptlen);
		assert_int_equal(r, n < SEAL_OVERHEAD ? PROTO_ERR_SHORT :
		    PROTO_ERR_TAG);
		assert_null(pt);
		assert_int_equal(a.recv_seq, 0);
	}
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), 0);
	assert_int_equal(ptlen, 11);
	free(pt);
	free(f);
}

static void
test_seal_toobig(void **state)
{
	struct seal	 c, a;
	uint8_t		*big, *f, *pt;
	size_t		 flen, ptlen, max = PROTO_FRAME_MAX - SEAL_OVERHEAD;

	(void)state;
	test_pair(&c, &a);
	big = calloc(1, PROTO_FRAME_MAX + 1);
	assert_non_null(big);
	/* Largest plaintext: a frame of exactly PROTO_FRAME_MAX. */
	assert_int_equal(seal_frame(&c, big, max + 1, &f, &flen),
	    PROTO_ERR_TOOBIG);
	assert_null(f);
	assert_int_equal(seal_frame(&c, big, max, &f, &flen), 0);
	assert_int_equal(flen, PROTO_FRAME_MAX);
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), 0);
	assert_int_equal(ptlen, max);
	free(pt);
	/* One byte more on the wire is refused before anything else. */
	memcpy(big, f, flen);
	assert_int_equal(seal_open(&a, big, PROTO_FRAME_MAX + 1, &pt, &ptlen),
	    PROTO_ERR_TOOBIG);
	assert_int_equal(a.recv_seq, 1);
	free(f);
	free(big);
}

static void
test_seal_other_run(void **state)
{
	struct seal	 c, a;
	uint8_t		 key[PROTO_KEY_LEN], *f, *pt;
	size_t		 flen, ptlen;

	(void)state;
	test_key(key, 0);
	assert_int_equal(seal_init(&c, key, "run-other", 0), 0);
	assert_int_equal(seal_init(&a, key, RUN_ID, 1), 0);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"x", 1, &f, &flen), 0);
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), PROTO_ERR_RUN);
	assert_int_equal(a.recv_seq, 0);
	free(f);
}

static void
test_seal_direction(void **state)
{
	struct seal	 c, a;
	uint8_t		*f, *pt;
	size_t		 flen, ptlen;

	(void)state;
	test_pair(&c, &a);
	/* Our own frame reflected back at us. */
	assert_int_equal(seal_frame(&c, (const uint8_t *)"x", 1, &f, &flen), 0);
	assert_int_equal(seal_open(&c, f, flen, &pt, &ptlen),
	    PROTO_ERR_DIRECTION);
	assert_int_equal(c.recv_seq, 0);
	free(f);
	assert_int_equal(seal_frame(&a, (const uint8_t *)"y", 1, &f, &flen), 0);
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen),
	    PROTO_ERR_DIRECTION);
	free(f);
}

static void
test_seal_version(void **state)
{
	struct seal	 c, a;
	uint8_t		*f, *pt;
	size_t		 flen, ptlen;

	(void)state;
	test_pair(&c, &a);
	assert_int_equal(a.peer_version, 0);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"x", 1, &f, &flen), 0);
	f[2] = PROTO_VERSION + 1;
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen),
	    PROTO_ERR_VERSION);
	assert_int_equal(a.peer_version, PROTO_VERSION + 1);
	assert_int_equal(a.recv_seq, 0);
	f[2] = 0;
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen),
	    PROTO_ERR_VERSION);
	assert_int_equal(a.peer_version, 0);
	free(f);
}

static void
test_seal_other_key(void **state)
{
	struct seal	 c, a;
	uint8_t		 key[PROTO_KEY_LEN], *f, *f2, *pt;
	size_t		 flen, f2len, ptlen;

	(void)state;
	test_key(key, 1);
	assert_int_equal(seal_init(&c, key, RUN_ID, 0), 0);
	test_key(key, 0);
	assert_int_equal(seal_init(&a, key, RUN_ID, 1), 0);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"forged", 6, &f,
	    &flen), 0);
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), PROTO_ERR_TAG);
	assert_null(pt);
	assert_int_equal(a.recv_seq, 0);
	/* The genuine sender's frame 1 still opens after the forgery. */
	assert_int_equal(seal_init(&c, key, RUN_ID, 0), 0);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"real", 4, &f2,
	    &f2len), 0);
	assert_int_equal(seal_open(&a, f2, f2len, &pt, &ptlen), 0);
	assert_memory_equal(pt, "real", 4);
	free(pt);
	free(f);
	free(f2);
}

static void
test_seal_failure_keeps_state(void **state)
{
	struct seal	 c, a, before;
	uint8_t		*good, *bad, *pt;
	size_t		 glen, blen, ptlen;

	(void)state;
	test_pair(&c, &a);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"a", 1, &bad, &blen), 0);
	assert_int_equal(seal_frame(&c, (const uint8_t *)"b", 1, &good, &glen),
	    0);
	/* A forged frame claiming a far sequence must not move recv_seq. */
	bad[20] = 0x7f;
	bad[SEAL_HDR_LEN] ^= 1;
	before = a;
	assert_int_equal(seal_open(&a, bad, blen, &pt, &ptlen), PROTO_ERR_TAG);
	assert_memory_equal(&a, &before, sizeof a);
	assert_int_equal(a.recv_seq, 0);
	assert_int_equal(seal_open(&a, good, glen, &pt, &ptlen), 0);
	assert_int_equal(a.recv_seq, 2);
	assert_memory_equal(pt, "b", 1);
	free(pt);
	free(good);
	free(bad);
}

static void
test_keyline_roundtrip(void **state)
{
	uint8_t		 key[PROTO_KEY_LEN], got[PROTO_KEY_LEN];
	char		 line[256], id[64];
	const char	*want = "ORCH-KEY 1 "
	    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f "
	    RUN_ID "\n";

	(void)state;
	test_key(key, 0);
	assert_int_equal(seal_keyline_format(key, RUN_ID, line, sizeof line), 0);
	assert_string_equal(line, want);
	memset(got, 0xaa, sizeof got);
	assert_int_equal(seal_keyline_parse(line, got, id, sizeof id), 0);
	assert_memory_equal(got, key, sizeof key);
	assert_string_equal(id, RUN_ID);
	/* Without the newline too. */
	line[strlen(line) - 1] = '\0';
	memset(got, 0, sizeof got);
	assert_int_equal(seal_keyline_parse(line, got, id, sizeof id), 0);
	assert_memory_equal(got, key, sizeof key);
	assert_string_equal(id, RUN_ID);
	/* A random key, a 63-character run id. */
	assert_int_equal(seal_keygen(key), 0);
	assert_int_equal(seal_keyline_format(key,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.",
	    line, sizeof line), 0);
	assert_int_equal(strlen(line), 11 + 64 + 1 + 63 + 1);
	assert_int_equal(seal_keyline_parse(line, got, id, sizeof id), 0);
	assert_memory_equal(got, key, sizeof key);
	assert_string_equal(id,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.");
}

static void
test_keyline_format_errors(void **state)
{
	uint8_t	key[PROTO_KEY_LEN];
	char	line[256];

	(void)state;
	test_key(key, 0);
	assert_int_equal(seal_keyline_format(key, "", line, sizeof line),
	    PROTO_ERR_FIELD);
	assert_int_equal(seal_keyline_format(key, "a b", line, sizeof line),
	    PROTO_ERR_FIELD);
	assert_int_equal(seal_keyline_format(key, "../x/y", line, sizeof line),
	    PROTO_ERR_FIELD);
	assert_int_equal(seal_keyline_format(key,
	    "0123456789012345678901234567890123456789012345678901234567890123",
	    line, sizeof line), PROTO_ERR_FIELD);
	/* 11 + 64 + 1 + 1 + 1 characters and the NUL: 78 bytes do not fit. */
	assert_int_equal(seal_keyline_format(key, "r", line, 78),
	    PROTO_ERR_TOOBIG);
	assert_int_equal(seal_keyline_format(key, "r", line, 79), 0);
	assert_int_equal(strlen(line), 78);
}

static void
test_keyline_malformed(void **state)
{
	static const char	*hex =
	    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
	static const struct {
		const char	*name;
		const char	*prefix;
		const char	*hex;
		const char	*rest;
	} bad[] = {
		{ "empty", "", "", "" },
		{ "prefix only", "ORCH-KEY 1 ", "", "" },
		{ "other version", "ORCH-KEY 2 ", NULL, " r\n" },
		{ "lowercase word", "orch-key 1 ", NULL, " r\n" },
		{ "leading space", " ORCH-KEY 1 ", NULL, " r\n" },
		{ "two spaces", "ORCH-KEY  1 ", NULL, " r\n" },
		{ "uppercase hex", "ORCH-KEY 1 ",
		  "000102030405060708090A0B0C0D0E0F101112131415161718191a1b1c1d1e1f",
		  " r\n" },
		{ "63 hex", "ORCH-KEY 1 ",
		  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1",
		  " r\n" },
		{ "65 hex", "ORCH-KEY 1 ",
		  "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f0",
		  " r\n" },
		{ "no run id", "ORCH-KEY 1 ", NULL, "\n" },
		{ "empty run id", "ORCH-KEY 1 ", NULL, " \n" },
		{ "tab", "ORCH-KEY 1 ", NULL, "\tr\n" },
		{ "space in run id", "ORCH-KEY 1 ", NULL, " r x\n" },
		{ "slash in run id", "ORCH-KEY 1 ", NULL, " r/x\n" },
		{ "run id ..", "ORCH-KEY 1 ", NULL, " ..\n" },
		{ "run id starting with .", "ORCH-KEY 1 ", NULL, " .r\n" },
		{ "run id starting with -", "ORCH-KEY 1 ", NULL, " -r\n" },
		{ "run id with ;", "ORCH-KEY 1 ", NULL, " r;x\n" },
		{ "crlf", "ORCH-KEY 1 ", NULL, " r\r\n" },
		{ "two newlines", "ORCH-KEY 1 ", NULL, " r\n\n" },
		{ "text after newline", "ORCH-KEY 1 ", NULL, " r\nx" },
		{ "trailing space", "ORCH-KEY 1 ", NULL, " r \n" },
		{ "64-char run id", "ORCH-KEY 1 ", NULL,
		  " 0123456789012345678901234567890123456789012345678901234567890123\n" },
	};
	uint8_t			 key[PROTO_KEY_LEN], zero[PROTO_KEY_LEN];
	char			 line[512], id[64];
	size_t			 i;

	(void)state;
	memset(zero, 0, sizeof zero);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(line, sizeof line, "%s%s%s", bad[i].prefix,
		    bad[i].hex != NULL ? bad[i].hex : hex, bad[i].rest);
		memset(key, 0, sizeof key);
		if (seal_keyline_parse(line, key, id, sizeof id) !=
		    PROTO_ERR_FIELD)
			fail_msg("accepted: %s", bad[i].name);
		assert_memory_equal(key, zero, sizeof key);
	}
	/* A good line but no room for the run id. */
	snprintf(line, sizeof line, "ORCH-KEY 1 %s run-1\n", hex);
	assert_int_equal(seal_keyline_parse(line, key, id, 5), PROTO_ERR_FIELD);
	assert_int_equal(seal_keyline_parse(line, key, id, 6), 0);
	assert_string_equal(id, "run-1");
}

/* ---- messages: round trips ---------------------------------------------- */

static void
test_msg_hello(void **state)
{
	struct proto_msg	m, out;

	(void)state;
	make_hello(&m, 0);
	test_roundtrip(&m, &out);
	check_hello(&m, &out);
	assert_int_equal(out.u.hello.has_facts, 0);
	proto_msg_free(&out);

	make_hello(&m, 1);
	test_roundtrip(&m, &out);
	check_hello(&m, &out);
	assert_string_equal(out.u.hello.facts.cpu_model,
	    "AMD EPYC 9654 96-Core Processor");
	assert_int_equal(out.u.hello.facts.cores, 192);
	proto_msg_free(&out);
}

static void
test_msg_error(void **state)
{
	struct proto_msg	m, out;

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PROTO_ERROR;
	strcpy(m.u.error.code, "version");
	strcpy(m.u.error.msg, "agent speaks protocol 2, coordinator 1");
	test_roundtrip(&m, &out);
	assert_string_equal(out.u.error.code, "version");
	assert_string_equal(out.u.error.msg,
	    "agent speaks protocol 2, coordinator 1");
	proto_msg_free(&out);
}

static void
test_msg_hashes(void **state)
{
	static const enum proto_type	types[] = { PROTO_QUERY, PROTO_HAVE };
	struct proto_msg		m, out;
	size_t				i, t;

	(void)state;
	for (t = 0; t < 2; t++) {
		memset(&m, 0, sizeof m);
		m.type = types[t];
		m.u.hashes.n = 5;
		m.u.hashes.sha = calloc(5, sizeof *m.u.hashes.sha);
		assert_non_null(m.u.hashes.sha);
		for (i = 0; i < 5; i++)
			test_hash(m.u.hashes.sha[i], (int)(i * 7));
		test_roundtrip(&m, &out);
		assert_int_equal(out.u.hashes.n, 5);
		for (i = 0; i < 5; i++)
			assert_string_equal(out.u.hashes.sha[i],
			    m.u.hashes.sha[i]);
		proto_msg_free(&out);
		proto_msg_free(&m);
		assert_null(m.u.hashes.sha);
		assert_int_equal(m.u.hashes.n, 0);

		/* An empty list. */
		test_roundtrip(&m, &out);
		assert_int_equal(out.u.hashes.n, 0);
		assert_null(out.u.hashes.sha);
		proto_msg_free(&out);
	}
}

static void
test_msg_plan(void **state)
{
	struct proto_msg	m, out;

	(void)state;
	make_plan(&m);
	test_roundtrip(&m, &out);
	check_plan(&m, &out);
	assert_string_equal(out.u.plan.cmds[0].args[1], "cache/data with space");
	assert_string_equal(out.u.plan.cmds[0].env[1], "EMPTY=");
	assert_int_equal(out.u.plan.cmds[1].nargs, 0);
	assert_null(out.u.plan.cmds[1].args);
	assert_int_equal(out.u.plan.steps[3].round, 4294967295U);
	proto_msg_free(&out);
	proto_msg_free(&m);
	assert_null(m.u.plan.cmds);
}

static void
test_msg_sample(void **state)
{
	struct proto_msg	m, out;

	(void)state;
	make_sample(&m, 1);
	test_roundtrip(&m, &out);
	check_sample(&m, &out);
	assert_string_equal(out.u.sample.checksum, "9f86d081884c7d65");
	proto_msg_free(&out);

	make_sample(&m, 0);
	strcpy(m.u.sample.checksum, "ignored when has_checksum is 0");
	test_roundtrip(&m, &out);
	assert_int_equal(out.u.sample.has_checksum, 0);
	assert_string_equal(out.u.sample.checksum, "");
	m.u.sample.checksum[0] = '\0';
	check_sample(&m, &out);
	proto_msg_free(&out);
}

static void
test_msg_ack_done_bye(void **state)
{
	struct proto_msg	m, out;

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PROTO_ACK;
	m.u.ack.seq = 4294967295U;
	test_roundtrip(&m, &out);
	assert_int_equal(out.u.ack.seq, 4294967295U);

	memset(&m, 0, sizeof m);
	m.type = PROTO_DONE;
	m.u.done.nsamples = 840;
	strcpy(m.u.done.reason, "load stayed above 0.33 for 600 s");
	m.u.done.ok = 1;
	test_roundtrip(&m, &out);
	assert_int_equal(out.u.done.nsamples, 840);
	assert_string_equal(out.u.done.reason,
	    "load stayed above 0.33 for 600 s");
	assert_int_equal(out.u.done.ok, 1);

	memset(&m, 0, sizeof m);
	m.type = PROTO_BYE;
	test_roundtrip(&m, &out);
	assert_int_equal(out.type, PROTO_BYE);

	memset(&m, 0, sizeof m);
	m.type = PROTO_STATUS;
	strcpy(m.u.state.state, "waiting-load");
	strcpy(m.u.state.detail, "1-minute load 1.52 above 0.67");
	m.u.state.load1 = 1.52;
	m.u.state.limit = 0.67;
	m.u.state.waited_ms = 4000;
	test_roundtrip(&m, &out);
	assert_string_equal(out.u.state.state, "waiting-load");
	assert_string_equal(out.u.state.detail, "1-minute load 1.52 above 0.67");
	assert_true(out.u.state.load1 == 1.52);
	assert_true(out.u.state.limit == 0.67);
	assert_int_equal(out.u.state.waited_ms, 4000);
}

static void
test_msg_wire_bytes(void **state)
{
	static const uint8_t	ack[] = {
		0x82, 0xa1, 't', 0x07, 0xa3, 's', 'e', 'q', 0xcd, 0x01, 0x2c
	};
	static const uint8_t	bye[] = { 0x81, 0xa1, 't', 0x09 };
	struct proto_msg	m;
	uint8_t			*buf;
	size_t			 len;

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PROTO_ACK;
	m.u.ack.seq = 300;
	assert_int_equal(proto_encode(&m, &buf, &len), 0);
	assert_int_equal(len, sizeof ack);
	assert_memory_equal(buf, ack, sizeof ack);
	free(buf);
	m.type = PROTO_BYE;
	assert_int_equal(proto_encode(&m, &buf, &len), 0);
	assert_int_equal(len, sizeof bye);
	assert_memory_equal(buf, bye, sizeof bye);
	free(buf);
}

/* test_msg_wire_members' messages, as msg.c encoded them (hex). */
#define WIRE_HELLO \
	"86a17401a570726f746f09a776657273696f6ea5302e312e30a672756e5f6964" \
	"b072756e2d32303234303530312e615f62a4686f7374a6657079632d31a56661" \
	"6374738da26f73a56c696e7578a461726368a67838365f3634a96370755f6d6f" \
	"64656cbf414d44204550594320393635342039362d436f72652050726f636573" \
	"736f72a66b65726e656cae362e312e302d31382d616d643634a8686f73746e61" \
	"6d65a465707963a7776f726b646972b12f686f6d652f62656e63682f2e6f7263" \
	"68a76d616368696e65d940656565656565656565656565656565656565656565" \
	"6565656565656565656565656565656565656565656565656565656565656565" \
	"6565656565656565656565ab776f726b6469725f646576cd0801ab776f726b64" \
	"69725f696e6fce00500001a5636f726573ccc0a66d656d5f6b62ce2f400000a4" \
	"6c6f616493cb3fd0000000000000cb3ff8000000000000cb4028400000000000" \
	"a5657874726182a8676f7665726e6f72ab706572666f726d616e6365a3736d74" \
	"a0"
#define WIRE_PLAN \
	"8ca17405a566696c657393d94064663366363139383034613932666462343035" \
	"3731393264633433646437343865613737386164633532626334393863653830" \
	"35323463303134623831313139d9403637616264643732313032346630666634" \
	"6530623366346332666331336263356261643432643062373835316434353664" \
	"383864323033643135616161343530d940323662323564343537353937613762" \
	"3034363366393632306636363664643130616132633433373361353035393637" \
	"6337633864373039323261326436656365a4636d6473938aa562656e6368a468" \
	"617368a776617269616e74a141a3657865d94064663366363139383034613932" \
	"6664623430353731393264633433646437343865613737386164633532626334" \
	"39386365383035323463303134623831313139a46172677393a7323030303030" \
	"30b563616368652f646174612077697468207370616365a0a3656e7692b14841" \
	"53484c4f4f505f45585452413d3130a6454d5054593daa74696d656f75745f6d" \
	"73cd7530ac636865636b73756d5f6b6579a8636865636b73756da5686f6f6b73" \
	"9302ffffa46e616d65a5787a636174a76d65747269637392aa656c6170736564" \
	"5f6e73a36f70738aa562656e6368a468617368a776617269616e74a142a36578" \
	"65a0a46172677390a3656e7690aa74696d656f75745f6d73cd7531ac63686563" \
	"6b73756d5f6b6579a8287374646f757429a4686f7374a4677a6970a5686f6f6b" \
	"7393ffff02a76d6574726963739088a562656e6368a728666c6f6f7229a77661" \
	"7269616e74a0a3657865d9403236623235643435373539376137623034363366" \
	"3936323066363636646431306161326334333733613530353936376337633864" \
	"373039323261326436656365a46172677390a3656e7690aa74696d656f75745f" \
	"6d7300ac636865636b73756d5f6b6579a0a46e616d65a96f7263682d6e756c6c" \
	"a57374657073949300000193010001930101009300ceffffffff00a86d61785f" \
	"6c6f6164cb3fd51eb851eb851fac6c6f61645f776169745f6d73ce000927c0a7" \
	"7265747269657302a370696ea3322c33a8636f756e74657273b3696e73747275" \
	"6374696f6e732c6379636c6573aa726573756d655f73657129a96c696e676572" \
	"5f6d73ce0036ee80a76772616e74656401"
#define WIRE_SAMPLE \
	"de0015a17406a373657111a47374657012a3636d6401a5726f756e6409a76174" \
	"74656d707402a67761726d757001a673746174757303a9657869745f636f6465" \
	"d280000000a67369676e616c09a777616c6c5f6e73cfffffffffffffffffa775" \
	"7365725f6e73cf0000011f71fb04cba67379735f6e7300a96d61787273735f6b" \
	"62ce00010000a56e7663737703a66e6976637377cd012ca56c6f616431cb3fb0" \
	"000000000000a873746172745f6e73d3e834a8c3968c32eba76d657472696373" \
	"83aa656c61707365645f6e73cb419d6f3454000000ab63616c6c735f7065725f" \
	"73cbbfe0000000000000a47a65726fcb0000000000000000a8636865636b7375" \
	"6db039663836643038313838346337643635a86572725f7461696cb273656766" \
	"61756c740a6c696e652074776f0a"
#define WIRE_PROGS \
	"82a1740ba570726f67739284a470726f67a4677a6970a470617468ad2f757372" \
	"2f62696e2f677a6970a3736861d9403434376531323730316130643033636639" \
	"3061346164376630326631613034356233356432383465323666653532303434" \
	"306564623131366437366266373030a776657273696f6ea9677a697020312e31" \
	"3284a470726f67a92f62696e2f74727565a470617468a92f62696e2f74727565" \
	"a3736861d9403434623334626131653135383536356364393862386234326461" \
	"3832616233646133383535623938323865663636383437656564346136366132" \
	"306332326234a776657273696f6ea0"

/*
 * Encodes m, whose bytes must be hex; they must decode to a message that
 * encodes to them again.
 */
static void
test_wire(const struct proto_msg *m, const char *name, const char *hex)
{
	struct proto_msg	 out;
	uint8_t			*buf, *again;
	size_t			 i, len, alen;
	char			*got;

	assert_int_equal(proto_encode(m, &buf, &len), 0);
	got = malloc(2 * len + 1);
	assert_non_null(got);
	for (i = 0; i < len; i++)
		snprintf(got + 2 * i, 3, "%02x", buf[i]);
	if (strcmp(got, hex) != 0) {
		/* Whole: a failure's message is cut at a few hundred bytes. */
		fprintf(stderr, "%s encodes as %s\n", name, got);
		fail_msg("%s encodes otherwise", name);
	}
	assert_int_equal(proto_decode(buf, len, &out), 0);
	assert_int_equal(proto_encode(&out, &again, &alen), 0);
	assert_int_equal(alen, len);
	assert_memory_equal(again, buf, len);
	proto_msg_free(&out);
	free(again);
	free(got);
	free(buf);
}

/*
 * The exact bytes of the members that are not plain fields: the facts'
 * load and extra, a plan's commands (a host program, hooks), steps and
 * files, a sample's metrics, the programs. They were written by msg.c
 * before these members shared their helpers; a change here is a change of
 * the wire format (PROTO_VERSION).
 */
static void
test_msg_wire_members(void **state)
{
	struct proto_msg	 m;
	struct proto_plan	*p;
	struct proto_cmd	*c;

	(void)state;
	make_hello(&m, 1);
	test_wire(&m, "hello", WIRE_HELLO);

	make_plan(&m);
	p = &m.u.plan;
	c = realloc(p->cmds, 3 * sizeof *p->cmds);
	assert_non_null(c);
	p->cmds = c;
	p->ncmds = 3;
	memset(&c[2], 0, sizeof c[2]);
	strcpy(c[2].bench, PROTO_FLOOR_BENCH);
	strcpy(c[2].exe, p->files[2]);
	c[2].has_name = 1;
	strcpy(c[2].name, "orch-null");
	c[0].has_hooks = c[1].has_hooks = 1;
	c[0].hooks[PROTO_HOOK_PREPARE] = 2;
	c[0].hooks[PROTO_HOOK_SETUP] = c[0].hooks[PROTO_HOOK_CLEANUP] = -1;
	c[1].hooks[PROTO_HOOK_PREPARE] = c[1].hooks[PROTO_HOOK_SETUP] = -1;
	c[1].hooks[PROTO_HOOK_CLEANUP] = 2;
	c[1].exe[0] = '\0';
	c[1].has_host = 1;
	strcpy(c[1].host, "gzip");
	strcpy(c[1].checksum_key, PROTO_CHECKSUM_STDOUT);
	test_wire(&m, "plan", WIRE_PLAN);
	proto_msg_free(&m);

	make_sample(&m, 1);
	test_wire(&m, "sample", WIRE_SAMPLE);

	memset(&m, 0, sizeof m);
	m.type = PROTO_PROGS;
	m.u.progs.n = 2;
	m.u.progs.v = calloc(2, sizeof *m.u.progs.v);
	assert_non_null(m.u.progs.v);
	strcpy(m.u.progs.v[0].prog, "gzip");
	strcpy(m.u.progs.v[0].path, "/usr/bin/gzip");
	test_hash(m.u.progs.v[0].sha, 20);
	strcpy(m.u.progs.v[0].version, "gzip 1.12");
	strcpy(m.u.progs.v[1].prog, "/bin/true");
	strcpy(m.u.progs.v[1].path, "/bin/true");
	test_hash(m.u.progs.v[1].sha, 21);
	test_wire(&m, "progs", WIRE_PROGS);
	proto_msg_free(&m);
}

static void
test_msg_sealed(void **state)
{
	struct seal		 c, a;
	struct proto_msg	 m, out;
	uint8_t			*enc, *f, *pt;
	size_t			 elen, flen, ptlen;

	(void)state;
	test_pair(&c, &a);
	make_plan(&m);
	assert_int_equal(proto_encode(&m, &enc, &elen), 0);
	assert_int_equal(seal_frame(&c, enc, elen, &f, &flen), 0);
	assert_int_equal(seal_open(&a, f, flen, &pt, &ptlen), 0);
	assert_int_equal(ptlen, elen);
	assert_int_equal(proto_decode(pt, ptlen, &out), 0);
	assert_int_equal(out.type, PROTO_PLAN);
	check_plan(&m, &out);
	proto_msg_free(&out);
	proto_msg_free(&m);
	free(enc);
	free(f);
	free(pt);
}

/* ---- messages: decoding what a peer should not send --------------------- */

static void
test_decode_truncated(void **state)
{
	struct proto_msg	 m, out;
	uint8_t			*buf;
	size_t			 len, n;

	(void)state;
	make_plan(&m);
	assert_int_equal(proto_encode(&m, &buf, &len), 0);
	for (n = 0; n < len; n++) {
		assert_int_equal(proto_decode(buf, n, &out), PROTO_ERR_DECODE);
		assert_int_equal(out.type, 0);
		assert_null(out.u.plan.cmds);
	}
	assert_int_equal(proto_decode(buf, len, &out), 0);
	proto_msg_free(&out);
	proto_msg_free(&m);
	free(buf);
}

static void
test_decode_wrong_types(void **state)
{
	struct proto_msg	hello, plan, sample, ack, done;
	uint64_t		u;
	int64_t			i;
	double			d = 1.5;
	uint64_t		step2[] = { 2, 0, 1 };

	(void)state;
	make_hello(&hello, 1);
	make_plan(&plan);
	make_sample(&sample, 1);
	memset(&ack, 0, sizeof ack);
	ack.type = PROTO_ACK;
	memset(&done, 0, sizeof done);
	done.type = PROTO_DONE;

	test_edit_decode(&ack, "seq", put_str, "5", PROTO_ERR_FIELD);
	test_edit_decode(&ack, "seq", put_float, &d, PROTO_ERR_FIELD);
	test_edit_decode(&ack, "seq", put_nil, NULL, PROTO_ERR_FIELD);
	i = -1;
	test_edit_decode(&ack, "seq", put_int, &i, PROTO_ERR_FIELD);
	u = 4294967296ULL;
	test_edit_decode(&ack, "seq", put_uint, &u, PROTO_ERR_FIELD);
	u = 4294967295ULL;
	test_edit_decode(&ack, "seq", put_uint, &u, 0);
	u = 5;
	test_edit_decode(&hello, "version", put_uint, &u, PROTO_ERR_FIELD);
	test_edit_decode(&hello, "facts", put_empty_array, NULL,
	    PROTO_ERR_FIELD);
	test_edit_decode(&plan, "files", put_nil, NULL, PROTO_ERR_FIELD);
	test_edit_decode(&plan, "steps", put_steps, step2, PROTO_ERR_FIELD);
	test_edit_decode(&plan, "max_load", put_str, "0.3", PROTO_ERR_FIELD);
	test_edit_decode(&sample, "wall_ns", put_float, &d, PROTO_ERR_FIELD);
	test_edit_decode(&sample, "metrics", put_empty_array, NULL,
	    PROTO_ERR_FIELD);
	i = 2147483648LL;
	test_edit_decode(&sample, "exit_code", put_int, &i, PROTO_ERR_FIELD);
	i = -2147483649LL;
	test_edit_decode(&sample, "signal", put_int, &i, PROTO_ERR_FIELD);
	i = -2147483648LL;
	test_edit_decode(&sample, "signal", put_int, &i, 0);
	u = 4;
	test_edit_decode(&sample, "status", put_uint, &u, PROTO_ERR_FIELD);
	u = 2;
	test_edit_decode(&sample, "warmup", put_uint, &u, PROTO_ERR_FIELD);
	test_edit_decode(&done, "ok", put_uint, &u, PROTO_ERR_FIELD);
	test_edit_decode(&sample, "checksum", put_nil, NULL, PROTO_ERR_FIELD);
	proto_msg_free(&plan);
}

static void
test_decode_numbers(void **state)
{
	struct proto_msg	 m, out;
	msgpack_sbuffer		 sb;
	double			 d = 0.375;
	int64_t			 i = -3;
	uint64_t		 u = 1ULL << 63;

	(void)state;
	make_sample(&m, 0);
	/* float32 and integers are numbers too. */
	test_edit(&m, "load1", put_float32, &d, &sb);
	assert_int_equal(proto_decode((const uint8_t *)sb.data, sb.size, &out),
	    0);
	assert_true(out.u.sample.load1 == 0.375);
	msgpack_sbuffer_destroy(&sb);
	test_edit(&m, "load1", put_int, &i, &sb);
	assert_int_equal(proto_decode((const uint8_t *)sb.data, sb.size, &out),
	    0);
	assert_true(out.u.sample.load1 == -3.0);
	msgpack_sbuffer_destroy(&sb);
	/* int64 range: 2^63 does not fit start_ns. */
	test_edit_decode(&m, "start_ns", put_uint, &u, PROTO_ERR_FIELD);
	u--;
	test_edit(&m, "start_ns", put_uint, &u, &sb);
	assert_int_equal(proto_decode((const uint8_t *)sb.data, sb.size, &out),
	    0);
	assert_true(out.u.sample.start_ns == INT64_MAX);
	msgpack_sbuffer_destroy(&sb);
}

static void
test_decode_string_limits(void **state)
{
	struct proto_msg	err, hello, sample, plan;
	size_t			n;

	(void)state;
	memset(&err, 0, sizeof err);
	err.type = PROTO_ERROR;
	make_hello(&hello, 0);
	make_sample(&sample, 1);
	make_plan(&plan);

	n = sizeof err.u.error.code - 1;
	test_edit_decode(&err, "code", put_xs, &n, 0);
	n++;
	test_edit_decode(&err, "code", put_xs, &n, PROTO_ERR_FIELD);
	n = sizeof hello.u.hello.run_id;
	test_edit_decode(&hello, "run_id", put_xs, &n, PROTO_ERR_FIELD);
	n = PROTO_TAIL_MAX - 1;
	test_edit_decode(&sample, "err_tail", put_xs, &n, 0);
	n = PROTO_TAIL_MAX;
	test_edit_decode(&sample, "err_tail", put_xs, &n, PROTO_ERR_FIELD);
	n = PROTO_CHECKSUM_MAX;
	test_edit_decode(&sample, "checksum", put_xs, &n, PROTO_ERR_FIELD);
	n = sizeof plan.u.plan.pin;
	test_edit_decode(&plan, "pin", put_xs, &n, PROTO_ERR_FIELD);
	/* NUL inside a string. */
	test_edit_decode(&err, "msg", put_str_nul, NULL, PROTO_ERR_FIELD);
	test_edit_decode(&hello, "version", put_str_nul, NULL,
	    PROTO_ERR_FIELD);
	proto_msg_free(&plan);
}

/* Encodes m (the encoder does not judge names) and decodes it: want. */
static void
test_reencode(const struct proto_msg *m, int want)
{
	struct proto_msg	 out;
	uint8_t			*buf;
	size_t			 len;

	assert_int_equal(proto_encode(m, &buf, &len), 0);
	assert_int_equal(proto_decode(buf, len, &out), want);
	if (want == 0)
		proto_msg_free(&out);
	free(buf);
}

/* Run ids, bench, variant, metric and fact names must be identifiers. */
static void
test_decode_idents(void **state)
{
	static const char	*bad[] = { "", "-r", ".r", "..", "a;b",
				    "$(id)", "`id`", "a b", "a/b", "a\nb",
				    "\xff", "'", "~" };
	static const char	*good[] = { "r", "run-2026.01_a", "A.-_9" };
	struct proto_msg	 m;
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		make_hello(&m, 1);
		test_edit_decode(&m, "run_id", put_str, bad[i],
		    PROTO_ERR_FIELD);
		strcpy(m.u.hello.facts.extra[0].key, bad[i]);
		test_reencode(&m, PROTO_ERR_FIELD);

		make_plan(&m);
		strcpy(m.u.plan.cmds[1].bench, bad[i]);
		test_reencode(&m, PROTO_ERR_FIELD);
		proto_msg_free(&m);
		if (bad[i][0] != '\0') {
			make_plan(&m);
			strcpy(m.u.plan.cmds[0].variant, bad[i]);
			test_reencode(&m, PROTO_ERR_FIELD);
			strcpy(m.u.plan.cmds[0].variant, "A");
			strcpy(m.u.plan.cmds[0].checksum_key, bad[i]);
			test_reencode(&m, PROTO_ERR_FIELD);
			proto_msg_free(&m);
		}

		make_sample(&m, 1);
		strcpy(m.u.sample.metrics[0].key, bad[i]);
		test_reencode(&m, PROTO_ERR_FIELD);
		proto_msg_free(&m);
	}
	/* The floor's command: bench "(floor)", variant "". */
	make_plan(&m);
	strcpy(m.u.plan.cmds[1].bench, PROTO_FLOOR_BENCH);
	strcpy(m.u.plan.cmds[1].variant, "");
	test_reencode(&m, 0);
	strcpy(m.u.plan.cmds[1].bench, "(floor");
	test_reencode(&m, PROTO_ERR_FIELD);
	proto_msg_free(&m);
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		make_hello(&m, 1);
		test_edit_decode(&m, "run_id", put_str, good[i], 0);
		strcpy(m.u.hello.facts.extra[0].key, good[i]);
		test_reencode(&m, 0);
		make_plan(&m);
		strcpy(m.u.plan.cmds[1].bench, good[i]);
		strcpy(m.u.plan.cmds[0].variant, good[i]);
		strcpy(m.u.plan.cmds[0].checksum_key, good[i]);
		test_reencode(&m, 0);
		proto_msg_free(&m);
		make_sample(&m, 1);
		strcpy(m.u.sample.metrics[0].key, good[i]);
		test_reencode(&m, 0);
		proto_msg_free(&m);
	}
}

static void
test_decode_step_range(void **state)
{
	struct proto_msg	 plan;
	uint8_t			*buf;
	size_t			 len;
	uint64_t		 ok[] = { 3, 1, 7, 1 };
	uint64_t		 bad[] = { 3, 2, 1, 0 };
	uint64_t		 huge[] = { 3, 4294967296ULL, 1, 0 };

	(void)state;
	make_plan(&plan);	/* two commands */
	test_edit_decode(&plan, "steps", put_steps, ok, 0);
	test_edit_decode(&plan, "steps", put_steps, bad, PROTO_ERR_FIELD);
	test_edit_decode(&plan, "steps", put_steps, huge, PROTO_ERR_FIELD);
	/* No commands: no step can be valid. */
	plan.u.plan.steps[0].cmd = 2;
	assert_int_equal(proto_encode(&plan, &buf, &len), PROTO_ERR_FIELD);
	assert_null(buf);
	proto_msg_free(&plan);
}

static void
test_decode_bad_hash(void **state)
{
	struct proto_msg	plan, query;
	struct cmd_spec		cs = { NULL, 1, "A=1" };
	char			h[PROTO_SHA_HEX];
	char			upper[PROTO_SHA_HEX], shorter[PROTO_SHA_HEX];
	size_t			i;

	(void)state;
	make_plan(&plan);
	memset(&query, 0, sizeof query);
	query.type = PROTO_QUERY;
	test_hash(h, 1);
	strcpy(upper, h);
	for (i = 0; upper[i] != '\0'; i++) {
		if (upper[i] >= 'a' && upper[i] <= 'f')
			upper[i] = (char)(upper[i] - 'a' + 'A');
	}
	strcpy(shorter, h);
	shorter[63] = '\0';

	test_edit_decode(&query, "sha", put_str_array, h, 0);
	test_edit_decode(&query, "sha", put_str_array, upper, PROTO_ERR_FIELD);
	test_edit_decode(&query, "sha", put_str_array, shorter,
	    PROTO_ERR_FIELD);
	test_edit_decode(&plan, "files", put_str_array, h, 0);
	test_edit_decode(&plan, "files", put_str_array, upper, PROTO_ERR_FIELD);
	proto_msg_free(&plan);
	/* A plan of no steps, so that one command is enough. */
	memset(&plan, 0, sizeof plan);
	plan.type = PROTO_PLAN;
	cs.exe = h;
	test_edit_decode(&plan, "cmds", put_cmds, &cs, 0);
	cs.exe = upper;
	test_edit_decode(&plan, "cmds", put_cmds, &cs, PROTO_ERR_FIELD);
	cs.exe = "x";
	test_edit_decode(&plan, "cmds", put_cmds, &cs, PROTO_ERR_FIELD);
}

/*
 * Returns the answer of encoding m (which checks a plan as decoding does)
 * and then decoding it; m is freed.
 */
static int
decode_of(struct proto_msg *m)
{
	struct proto_msg	 out;
	uint8_t			*buf;
	size_t			 len;
	int			 r;

	r = proto_encode(m, &buf, &len);
	proto_msg_free(m);
	if (r != 0)
		return (r);
	r = proto_decode(buf, len, &out);
	if (r == 0)
		proto_msg_free(&out);
	free(buf);
	return (r);
}

/*
 * A command's name is a base name of a cache program, its metric keys
 * identifiers: anything else is refused.
 */
static void
test_plan_name_mkeys(void **state)
{
	static const char *const badnames[] = { "", "a/b", "/xz", ".", ".." };
	static const char *const badkeys[] = { "", "-x", "a b", "k=v" };
	struct proto_msg	 m;
	size_t			 i;

	(void)state;
	make_plan(&m);
	assert_int_equal(decode_of(&m), 0);
	for (i = 0; i < sizeof badnames / sizeof badnames[0]; i++) {
		make_plan(&m);
		strcpy(m.u.plan.cmds[0].name, badnames[i]);
		assert_int_equal(decode_of(&m), PROTO_ERR_FIELD);
	}
	/* A host program has its own name. */
	make_plan(&m);
	m.u.plan.cmds[0].exe[0] = '\0';
	m.u.plan.cmds[0].has_host = 1;
	strcpy(m.u.plan.cmds[0].host, "xzcat");
	assert_int_equal(decode_of(&m), PROTO_ERR_FIELD);
	for (i = 0; i < sizeof badkeys / sizeof badkeys[0]; i++) {
		make_plan(&m);
		free(m.u.plan.cmds[0].mkeys[1]);
		m.u.plan.cmds[0].mkeys[1] = test_strdup(badkeys[i]);
		assert_int_equal(decode_of(&m), PROTO_ERR_FIELD);
	}
}

static void
test_decode_list_limits(void **state)
{
	struct proto_msg	plan, sample, hello;
	struct cmd_spec		cs = { NULL, PROTO_ARGS_MAX, "A=1" };
	char			h[PROTO_SHA_HEX];
	size_t			n;
	int			k;

	(void)state;
	memset(&plan, 0, sizeof plan);
	plan.type = PROTO_PLAN;
	test_hash(h, 2);
	cs.exe = h;
	test_edit_decode(&plan, "cmds", put_cmds, &cs, 0);
	cs.nargs++;
	test_edit_decode(&plan, "cmds", put_cmds, &cs, PROTO_ERR_FIELD);
	cs.nargs = 1;
	cs.env = "NOEQUALS";
	test_edit_decode(&plan, "cmds", put_cmds, &cs, PROTO_ERR_FIELD);
	cs.env = "=value";
	test_edit_decode(&plan, "cmds", put_cmds, &cs, PROTO_ERR_FIELD);

	make_sample(&sample, 0);
	k = PROTO_METRICS_MAX;
	test_edit_decode(&sample, "metrics", put_metrics, &k, 0);
	k++;
	test_edit_decode(&sample, "metrics", put_metrics, &k, PROTO_ERR_FIELD);
	k = -1;
	test_edit_decode(&sample, "metrics", put_metrics, &k, PROTO_ERR_FIELD);

	make_hello(&hello, 0);
	n = PROTO_FACTS_EXTRA_MAX;
	test_edit_decode(&hello, "facts", put_facts, &n, 0);
	n++;
	test_edit_decode(&hello, "facts", put_facts, &n, PROTO_ERR_FIELD);
}

static void
test_decode_type(void **state)
{
	struct proto_msg	m;
	uint64_t		u;
	int64_t			i;

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PROTO_BYE;
	u = 99;
	test_edit_decode(&m, "t", put_uint, &u, PROTO_ERR_TYPE);
	u = 0;
	test_edit_decode(&m, "t", put_uint, &u, PROTO_ERR_TYPE);
	u = 13;
	test_edit_decode(&m, "t", put_uint, &u, PROTO_ERR_TYPE);
	i = -7;
	test_edit_decode(&m, "t", put_int, &i, PROTO_ERR_TYPE);
	test_edit_decode(&m, "t", put_str, "bye", PROTO_ERR_FIELD);
	test_edit_decode(&m, "t", NULL, NULL, PROTO_ERR_FIELD);
	u = 7;	/* ack, without its seq */
	test_edit_decode(&m, "t", put_uint, &u, PROTO_ERR_FIELD);
}

static void
test_decode_keys(void **state)
{
	static const uint8_t	dup[] = {
		0x83, 0xa1, 't', 0x07, 0xa3, 's', 'e', 'q', 0x01,
		0xa3, 's', 'e', 'q', 0x02
	};
	static const uint8_t	dupt[] = {
		0x82, 0xa1, 't', 0x09, 0xa1, 't', 0x09
	};
	static const uint8_t	intkey[] = {
		0x83, 0xa1, 't', 0x07, 0x05, 0x06, 0xa3, 's', 'e', 'q', 0x03
	};
	struct proto_msg	m, out;
	struct proto_msg	sample;
	int			depth = 3;

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PROTO_ACK;
	m.u.ack.seq = 42;
	/* A newer peer's extra keys are skipped. */
	test_edit_decode(&m, "future", put_nested, &depth, 0);
	test_edit_decode(&m, "seq", NULL, NULL, PROTO_ERR_FIELD);
	assert_int_equal(proto_decode(dup, sizeof dup, &out), PROTO_ERR_FIELD);
	assert_int_equal(proto_decode(dupt, sizeof dupt, &out),
	    PROTO_ERR_FIELD);
	assert_int_equal(proto_decode(intkey, sizeof intkey, &out), 0);
	assert_int_equal(out.u.ack.seq, 3);
	make_sample(&sample, 1);
	test_edit_decode(&sample, "err_tail", NULL, NULL, PROTO_ERR_FIELD);
	test_edit_decode(&sample, "checksum", NULL, NULL, 0);
}

static void
test_decode_garbage(void **state)
{
	static const uint8_t	trailing[] = {
		0x81, 0xa1, 't', 0x09, 0x00
	};
	static const uint8_t	twice[] = {
		0x81, 0xa1, 't', 0x09, 0x81, 0xa1, 't', 0x09
	};
	static const uint8_t	array[] = { 0x91, 0x09 };
	static const uint8_t	c1[] = { 0x81, 0xa1, 't', 0xc1 };
	static const uint8_t	one = 0x09;
	struct proto_msg	out;
	uint8_t			*big;

	(void)state;
	assert_int_equal(proto_decode(trailing, sizeof trailing, &out),
	    PROTO_ERR_DECODE);
	assert_int_equal(proto_decode(twice, sizeof twice, &out),
	    PROTO_ERR_DECODE);
	assert_int_equal(proto_decode(trailing, 4, &out), 0);
	assert_int_equal(out.type, PROTO_BYE);
	assert_int_equal(proto_decode(array, sizeof array, &out),
	    PROTO_ERR_DECODE);
	assert_int_equal(proto_decode(&one, 1, &out), PROTO_ERR_DECODE);
	assert_int_equal(proto_decode(&one, 0, &out), PROTO_ERR_DECODE);
	assert_int_equal(proto_decode(c1, sizeof c1, &out), PROTO_ERR_DECODE);
	big = calloc(1, PROTO_FRAME_MAX + 1);
	assert_non_null(big);
	assert_int_equal(proto_decode(big, PROTO_FRAME_MAX + 1, &out),
	    PROTO_ERR_TOOBIG);
	free(big);
}

static void
test_decode_nesting(void **state)
{
	struct proto_msg	m;
	int			depth;

	(void)state;
	memset(&m, 0, sizeof m);
	m.type = PROTO_ACK;
	/* The top map plus 15 arrays: 16 levels, the limit. */
	depth = 15;
	test_edit_decode(&m, "x", put_nested, &depth, 0);
	depth = 16;
	test_edit_decode(&m, "x", put_nested, &depth, PROTO_ERR_DECODE);
	/* Past msgpack-c's own stack of 32. */
	depth = 40;
	test_edit_decode(&m, "x", put_nested, &depth, PROTO_ERR_DECODE);
	depth = 1000;
	test_edit_decode(&m, "x", put_nested, &depth, PROTO_ERR_DECODE);
}

static void
test_decode_huge_counts(void **state)
{
	/* A map of 2^31 entries in 10 bytes: must fail, not allocate 64 GB. */
	static const uint8_t	map[] = {
		0xdf, 0x80, 0x00, 0x00, 0x00, 0xa1, 't', 0x09, 0xa1, 'x'
	};
	static const uint8_t	arr[] = {
		0x82, 0xa1, 't', 0x09, 0xa1, 'x', 0xdd, 0xff, 0xff, 0xff, 0xff
	};
	static const uint8_t	str[] = {
		0x82, 0xa1, 't', 0x09, 0xa1, 'x', 0xdb, 0xff, 0xff, 0xff, 0xf0,
		'a'
	};
	static const uint8_t	ext[] = {
		0x82, 0xa1, 't', 0x09, 0xa1, 'x', 0xc9, 0x7f, 0xff, 0xff, 0xff,
		0x01
	};
	static const uint8_t	map16[] = {
		0x82, 0xa1, 't', 0x09, 0xa1, 'x', 0xde, 0x00, 0x02, 0x01, 0x02,
		0x03
	};
	struct proto_msg	out;

	(void)state;
	assert_int_equal(proto_decode(map, sizeof map, &out), PROTO_ERR_DECODE);
	assert_int_equal(proto_decode(arr, sizeof arr, &out), PROTO_ERR_DECODE);
	assert_int_equal(proto_decode(str, sizeof str, &out), PROTO_ERR_DECODE);
	assert_int_equal(proto_decode(ext, sizeof ext, &out), PROTO_ERR_DECODE);
	/* Two entries claimed, three bytes left: one short of four. */
	assert_int_equal(proto_decode(map16, sizeof map16, &out),
	    PROTO_ERR_DECODE);
}

static void
test_encode_errors(void **state)
{
	struct proto_msg	 m;
	uint8_t			*buf = (uint8_t *)"x";
	size_t			 len = 1, i;

	(void)state;
	memset(&m, 0, sizeof m);
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_TYPE);
	assert_null(buf);
	assert_int_equal(len, 0);

	/* 16000 hashes take 66 bytes each: more than a frame holds. */
	m.type = PROTO_HAVE;
	m.u.hashes.n = 16000;
	m.u.hashes.sha = calloc(m.u.hashes.n, sizeof *m.u.hashes.sha);
	assert_non_null(m.u.hashes.sha);
	for (i = 0; i < m.u.hashes.n; i++)
		test_hash(m.u.hashes.sha[i], (int)i);
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_TOOBIG);
	assert_null(buf);
	/* 15000 fit. */
	m.u.hashes.n = 15000;
	assert_int_equal(proto_encode(&m, &buf, &len), 0);
	/* Map, "t", 4, "sha", array16 header, then 66 bytes per hash. */
	assert_int_equal(len, 1 + 2 + 1 + 4 + 3 + 15000 * 66);
	free(buf);
	m.u.hashes.n = 5;
	m.u.hashes.sha[3][0] = 'G';
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	proto_msg_free(&m);

	make_sample(&m, 1);
	m.u.sample.status = 4;
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	make_sample(&m, 1);
	m.u.sample.nmetrics = PROTO_METRICS_MAX + 1;
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	make_sample(&m, 1);
	memset(m.u.sample.checksum, 'c', sizeof m.u.sample.checksum);
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);

	make_plan(&m);
	m.u.plan.cmds[0].nargs = PROTO_ARGS_MAX + 1;
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	m.u.plan.cmds[0].nargs = 3;
	free(m.u.plan.cmds[0].env[0]);
	m.u.plan.cmds[0].env[0] = test_strdup("NOEQUALS");
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	proto_msg_free(&m);
	assert_null(buf);
}

static void
test_msg_free_null(void **state)
{
	struct proto_msg	m;

	(void)state;
	proto_msg_free(NULL);
	memset(&m, 0, sizeof m);
	m.type = PROTO_PLAN;
	proto_msg_free(&m);
	proto_msg_free(&m);
	assert_null(m.u.plan.steps);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(proto_type_name(PROTO_HELLO), "hello");
	assert_string_equal(proto_type_name(PROTO_ERROR), "error");
	assert_string_equal(proto_type_name(PROTO_QUERY), "query");
	assert_string_equal(proto_type_name(PROTO_HAVE), "have");
	assert_string_equal(proto_type_name(PROTO_PLAN), "plan");
	assert_string_equal(proto_type_name(PROTO_SAMPLE), "sample");
	assert_string_equal(proto_type_name(PROTO_ACK), "ack");
	assert_string_equal(proto_type_name(PROTO_DONE), "done");
	assert_string_equal(proto_type_name(PROTO_BYE), "bye");
	assert_string_equal(proto_type_name(0), "unknown");
	assert_string_equal(proto_type_name(-1), "unknown");
	assert_string_equal(proto_type_name(PROTO_STATUS), "status");
	assert_string_equal(proto_type_name(PROTO_PROGS), "progs");
	assert_string_equal(proto_type_name(PROTO_GRANT), "grant");
	assert_string_equal(proto_type_name(13), "unknown");
	assert_string_equal(proto_status_name(PROTO_ST_OK), "ok");
	assert_string_equal(proto_status_name(PROTO_ST_FAILED), "failed");
	assert_string_equal(proto_status_name(PROTO_ST_TIMEOUT), "timeout");
	assert_string_equal(proto_status_name(PROTO_ST_SIGNAL), "signal");
	assert_string_equal(proto_status_name(4), "unknown");
	assert_string_equal(proto_strerror(PROTO_OK), "success");
	assert_string_equal(proto_strerror(PROTO_ERR_TAG),
	    "frame failed authentication");
	assert_string_equal(proto_strerror(PROTO_ERR_VERSION),
	    "peer speaks another protocol version");
	assert_string_equal(proto_strerror(-99), "unknown error");
}

/*
 * Version 6: an open plan's grant is at most its steps, GRANT round-trips,
 * and a final flag other than 0 or 1 is refused.
 */
static void
test_grant(void **state)
{
	struct proto_msg	m, out;
	uint8_t			*buf;
	size_t			 len;
	uint64_t		 u;

	(void)state;
	make_plan(&m);
	m.u.plan.granted = (uint32_t)m.u.plan.nsteps + 1;
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	m.u.plan.granted = (uint32_t)m.u.plan.nsteps;
	u = m.u.plan.nsteps + 1;
	test_edit_decode(&m, "granted", put_uint, &u, PROTO_ERR_FIELD);
	test_edit_decode(&m, "granted", NULL, NULL, PROTO_ERR_FIELD);
	proto_msg_free(&m);
	memset(&m, 0, sizeof m);
	m.type = PROTO_GRANT;
	m.u.grant.granted = 4000000000U;
	m.u.grant.final = 1;
	test_roundtrip(&m, &out);
	assert_int_equal(out.u.grant.granted, 4000000000U);
	assert_int_equal(out.u.grant.final, 1);
	proto_msg_free(&out);
	u = 2;
	test_edit_decode(&m, "final", put_uint, &u, PROTO_ERR_FIELD);
	test_edit_decode(&m, "granted", NULL, NULL, PROTO_ERR_FIELD);
}

/*
 * Version 8's environment padding: a plan's env_pad and env_pad_seed and a
 * sample's env_pad round-trip, absent stays absent (an older coordinator's
 * plan pads nothing), and a plan's env_pad past PROTO_ENV_PAD_MAX is refused.
 */
static void
test_env_pad(void **state)
{
	struct proto_msg	m, out;
	uint8_t			*buf;
	size_t			 len;
	uint64_t		 u;

	(void)state;
	make_plan(&m);
	test_roundtrip(&m, &out);
	assert_int_equal(out.u.plan.has_env_pad, 0);
	assert_int_equal(out.u.plan.has_env_pad_seed, 0);
	proto_msg_free(&out);
	m.u.plan.has_env_pad = m.u.plan.has_env_pad_seed = 1;
	m.u.plan.env_pad = PROTO_ENV_PAD_MAX;
	m.u.plan.env_pad_seed = 18446744073709551615ULL;
	test_roundtrip(&m, &out);
	check_plan(&m, &out);
	assert_int_equal(out.u.plan.has_env_pad, 1);
	assert_int_equal(out.u.plan.env_pad, PROTO_ENV_PAD_MAX);
	assert_true(out.u.plan.env_pad_seed == 18446744073709551615ULL);
	proto_msg_free(&out);
	u = PROTO_ENV_PAD_MAX + 1;
	test_edit_decode(&m, "env_pad", put_uint, &u, PROTO_ERR_FIELD);
	m.u.plan.env_pad = PROTO_ENV_PAD_MAX + 1;
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	proto_msg_free(&m);

	make_sample(&m, 0);
	test_roundtrip(&m, &out);
	assert_int_equal(out.u.sample.has_env_pad, 0);
	proto_msg_free(&out);
	m.u.sample.has_env_pad = 1;
	m.u.sample.env_pad = 4096;
	test_roundtrip(&m, &out);
	check_sample(&m, &out);
	assert_int_equal(out.u.sample.has_env_pad, 1);
	assert_int_equal(out.u.sample.env_pad, 4096);
	proto_msg_free(&out);
	u = PROTO_ENV_PAD_MAX + 1;
	test_edit_decode(&m, "env_pad", put_uint, &u, PROTO_ERR_FIELD);
	m.u.sample.env_pad = PROTO_ENV_PAD_MAX + 1;
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	proto_msg_free(&m);
}

/*
 * Version 9's settle: a plan's settle_ms round-trips, absent stays absent
 * (an older coordinator's plan starts at once), and one past
 * PROTO_SETTLE_MAX is refused both ways.
 */
static void
test_settle(void **state)
{
	struct proto_msg	m, out;
	uint8_t			*buf;
	size_t			 len;
	uint64_t		 u;

	(void)state;
	make_plan(&m);
	test_roundtrip(&m, &out);
	assert_int_equal(out.u.plan.has_settle_ms, 0);
	assert_int_equal(out.u.plan.settle_ms, 0);
	proto_msg_free(&out);
	m.u.plan.has_settle_ms = 1;
	m.u.plan.settle_ms = PROTO_SETTLE_MAX;
	test_roundtrip(&m, &out);
	check_plan(&m, &out);
	assert_int_equal(out.u.plan.has_settle_ms, 1);
	assert_int_equal(out.u.plan.settle_ms, PROTO_SETTLE_MAX);
	proto_msg_free(&out);
	u = PROTO_SETTLE_MAX + 1;
	test_edit_decode(&m, "settle_ms", put_uint, &u, PROTO_ERR_FIELD);
	m.u.plan.settle_ms = PROTO_SETTLE_MAX + 1;
	assert_int_equal(proto_encode(&m, &buf, &len), PROTO_ERR_FIELD);
	proto_msg_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seal_runtag),
		cmocka_unit_test(test_seal_init),
		cmocka_unit_test(test_seal_keygen),
		cmocka_unit_test(test_seal_roundtrip),
		cmocka_unit_test(test_seal_plaintext_hidden),
		cmocka_unit_test(test_seal_tamper_header),
		cmocka_unit_test(test_seal_tamper_body),
		cmocka_unit_test(test_seal_replay),
		cmocka_unit_test(test_seal_reorder),
		cmocka_unit_test(test_seal_truncated),
		cmocka_unit_test(test_seal_toobig),
		cmocka_unit_test(test_seal_other_run),
		cmocka_unit_test(test_seal_direction),
		cmocka_unit_test(test_seal_version),
		cmocka_unit_test(test_seal_other_key),
		cmocka_unit_test(test_seal_failure_keeps_state),
		cmocka_unit_test(test_keyline_roundtrip),
		cmocka_unit_test(test_keyline_format_errors),
		cmocka_unit_test(test_keyline_malformed),
		cmocka_unit_test(test_msg_hello),
		cmocka_unit_test(test_msg_error),
		cmocka_unit_test(test_msg_hashes),
		cmocka_unit_test(test_msg_plan),
		cmocka_unit_test(test_msg_sample),
		cmocka_unit_test(test_env_pad),
		cmocka_unit_test(test_settle),
		cmocka_unit_test(test_msg_ack_done_bye),
		cmocka_unit_test(test_msg_wire_bytes),
		cmocka_unit_test(test_msg_wire_members),
		cmocka_unit_test(test_msg_sealed),
		cmocka_unit_test(test_decode_truncated),
		cmocka_unit_test(test_decode_wrong_types),
		cmocka_unit_test(test_decode_numbers),
		cmocka_unit_test(test_decode_string_limits),
		cmocka_unit_test(test_decode_idents),
		cmocka_unit_test(test_decode_step_range),
		cmocka_unit_test(test_decode_bad_hash),
		cmocka_unit_test(test_plan_name_mkeys),
		cmocka_unit_test(test_decode_list_limits),
		cmocka_unit_test(test_decode_type),
		cmocka_unit_test(test_decode_keys),
		cmocka_unit_test(test_decode_garbage),
		cmocka_unit_test(test_decode_nesting),
		cmocka_unit_test(test_decode_huge_counts),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_msg_free_null),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_grant),
	};

	return (cmocka_run_group_tests_name("proto", tests, NULL, NULL));
}
