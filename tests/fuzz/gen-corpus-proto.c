/*
 * Writes the seed corpus of fuzz-proto.c into DIR: one encoded message of
 * each type, and the same messages sealed as the coordinator would send
 * them to an agent under the fuzz target's key and run id.
 *
 *   cc -I. tests/fuzz/gen-corpus-proto.c proto/seal.c proto/msg.c \
 *       proto/hash.c proto/log.c $(pkg-config --cflags --libs msgpack \
 *       libcrypto) -o /tmp/gen-corpus-proto
 *   /tmp/gen-corpus-proto tests/fuzz/corpus-proto
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/hash.h"
#include "proto/proto.h"
#include "proto/seal.h"

/* Keep in step with fuzz-proto.c. */
#define GEN_RUN_ID	"fuzz-run-1"

static struct seal	gen_seal;
static const char	*gen_dir;

/* Writes len bytes to DIR/name; exits on failure (a program, not a library). */
static void
gen_write(const char *name, const uint8_t *buf, size_t len)
{
	char	 path[1024];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", gen_dir, name);
	if ((f = fopen(path, "wb")) == NULL ||
	    fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* Writes msg encoded as name, and sealed as sealed-name. */
static void
gen_msg(const char *name, const struct proto_msg *msg)
{
	uint8_t	*enc, *frame;
	size_t	 elen, flen;
	char	 sname[256];

	if (proto_encode(msg, &enc, &elen) != 0 ||
	    seal_frame(&gen_seal, enc, elen, &frame, &flen) != 0) {
		fprintf(stderr, "cannot encode %s\n", name);
		exit(1);
	}
	gen_write(name, enc, elen);
	snprintf(sname, sizeof sname, "sealed-%s", name);
	gen_write(sname, frame, flen);
	free(enc);
	free(frame);
}

static char *
gen_strdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		exit(1);
	return (p);
}

int
main(int argc, char **argv)
{
	struct proto_msg	 m;
	struct proto_plan	*p;
	struct proto_sample	*s;
	uint8_t			 key[PROTO_KEY_LEN];
	int			 i;

	if (argc != 2) {
		fprintf(stderr, "usage: gen-corpus-proto DIR\n");
		return (2);
	}
	gen_dir = argv[1];
	for (i = 0; i < PROTO_KEY_LEN; i++)
		key[i] = (uint8_t)(0x40 + i);
	if (seal_init(&gen_seal, key, GEN_RUN_ID, 0) != 0)
		return (1);

	memset(&m, 0, sizeof m);
	m.type = PROTO_HELLO;
	m.u.hello.proto = PROTO_VERSION;
	strcpy(m.u.hello.version, "0.1.0");
	strcpy(m.u.hello.run_id, GEN_RUN_ID);
	gen_msg("hello", &m);
	m.u.hello.has_facts = 1;
	strcpy(m.u.hello.facts.os, "linux");
	strcpy(m.u.hello.facts.arch, "aarch64");
	strcpy(m.u.hello.facts.cpu_model, "Neoverse-N1");
	strcpy(m.u.hello.facts.kernel, "6.1.0");
	strcpy(m.u.hello.facts.hostname, "box");
	strcpy(m.u.hello.facts.workdir, "/home/b/.orch");
	m.u.hello.facts.cores = 2;
	m.u.hello.facts.mem_kb = 4045000;
	m.u.hello.facts.load[0] = 0.1;
	m.u.hello.facts.load[1] = 0.2;
	m.u.hello.facts.load[2] = 0.3;
	m.u.hello.facts.nextra = 1;
	strcpy(m.u.hello.facts.extra[0].key, "governor");
	strcpy(m.u.hello.facts.extra[0].value, "schedutil");
	gen_msg("hello-facts", &m);

	memset(&m, 0, sizeof m);
	m.type = PROTO_ERROR;
	strcpy(m.u.error.code, "version");
	strcpy(m.u.error.msg, "agent speaks protocol 2");
	gen_msg("error", &m);

	memset(&m, 0, sizeof m);
	m.type = PROTO_QUERY;
	m.u.hashes.n = 2;
	if ((m.u.hashes.sha = calloc(2, sizeof *m.u.hashes.sha)) == NULL)
		return (1);
	hash_buf("a", 1, m.u.hashes.sha[0]);
	hash_buf("b", 1, m.u.hashes.sha[1]);
	gen_msg("query", &m);
	m.type = PROTO_HAVE;
	m.u.hashes.n = 1;
	gen_msg("have", &m);
	m.u.hashes.n = 2;
	proto_msg_free(&m);

	memset(&m, 0, sizeof m);
	m.type = PROTO_PLAN;
	p = &m.u.plan;
	p->nfiles = 2;
	p->ncmds = 2;
	p->nsteps = 3;
	if ((p->files = calloc(2, sizeof *p->files)) == NULL ||
	    (p->cmds = calloc(2, sizeof *p->cmds)) == NULL ||
	    (p->steps = calloc(3, sizeof *p->steps)) == NULL)
		return (1);
	hash_buf("A", 1, p->files[0]);
	hash_buf("B", 1, p->files[1]);
	for (i = 0; i < 2; i++) {
		strcpy(p->cmds[i].bench, "hash");
		strcpy(p->cmds[i].variant, i == 0 ? "A" : "B");
		strcpy(p->cmds[i].exe, p->files[i]);
		p->cmds[i].timeout_ms = 30000;
		p->cmds[i].nargs = 1;
		if ((p->cmds[i].args = calloc(1, sizeof (char *))) == NULL)
			return (1);
		p->cmds[i].args[0] = gen_strdup("2000000");
	}
	strcpy(p->cmds[0].checksum_key, "checksum");
	p->cmds[1].nenv = 1;
	if ((p->cmds[1].env = calloc(1, sizeof (char *))) == NULL)
		return (1);
	p->cmds[1].env[0] = gen_strdup("HASHLOOP_EXTRA=10");
	p->steps[0] = (struct proto_step){ 0, 0, 1 };
	p->steps[1] = (struct proto_step){ 1, 1, 0 };
	p->steps[2] = (struct proto_step){ 0, 1, 0 };
	p->max_load = 0.33;
	p->load_wait_ms = 60000;
	p->retries = 1;
	strcpy(p->pin, "2,3");
	gen_msg("plan", &m);
	/*
	 * Version 5: B is the host's own gzip, stdout is the checksum, and a
	 * third command (never a step) is A's and B's prepare hook.
	 */
	p->cmds = realloc(p->cmds, 3 * sizeof *p->cmds);
	if (p->cmds == NULL)
		return (1);
	memset(&p->cmds[2], 0, sizeof p->cmds[2]);
	strcpy(p->cmds[2].bench, "hash");
	p->cmds[2].has_host = 1;
	strcpy(p->cmds[2].host, "/usr/bin/sync");
	if ((p->cmds[2].args = calloc(1, sizeof (char *))) == NULL ||
	    (p->cmds[2].env = calloc(1, sizeof (char *))) == NULL)
		return (1);
	p->ncmds = 3;
	p->cmds[1].exe[0] = '\0';
	p->cmds[1].has_host = 1;
	strcpy(p->cmds[1].host, "gzip");
	strcpy(p->cmds[0].checksum_key, PROTO_CHECKSUM_STDOUT);
	for (i = 0; i < 2; i++) {
		p->cmds[i].has_hooks = 1;
		p->cmds[i].hooks[PROTO_HOOK_PREPARE] = 2;
		p->cmds[i].hooks[PROTO_HOOK_SETUP] = -1;
		p->cmds[i].hooks[PROTO_HOOK_CLEANUP] = -1;
	}
	gen_msg("plan-hostprog", &m);
	/*
	 * Version 7: A runs under its base name, and reads only the metric
	 * elapsed_ns from its stdout.
	 */
	p->cmds[0].has_name = 1;
	strcpy(p->cmds[0].name, "xzcat");
	p->cmds[0].has_mkeys = 1;
	p->cmds[0].nmkeys = 1;
	if ((p->cmds[0].mkeys = calloc(1, sizeof (char *))) == NULL)
		return (1);
	p->cmds[0].mkeys[0] = gen_strdup("elapsed_ns");
	gen_msg("plan-named", &m);
	proto_msg_free(&m);

	memset(&m, 0, sizeof m);
	m.type = PROTO_PROGS;
	m.u.progs.n = 1;
	if ((m.u.progs.v = calloc(1, sizeof *m.u.progs.v)) == NULL)
		return (1);
	strcpy(m.u.progs.v[0].prog, "gzip");
	strcpy(m.u.progs.v[0].path, "/usr/bin/gzip");
	hash_buf("gzip", 4, m.u.progs.v[0].sha);
	strcpy(m.u.progs.v[0].version, "gzip 1.12");
	gen_msg("progs", &m);
	proto_msg_free(&m);

	memset(&m, 0, sizeof m);
	m.type = PROTO_SAMPLE;
	s = &m.u.sample;
	s->seq = 4;
	s->step = 4;
	s->round = 2;
	s->attempt = 1;
	s->status = PROTO_ST_OK;
	s->wall_ns = 1500000000;
	s->user_ns = 1400000000;
	s->sys_ns = 20000000;
	s->maxrss_kb = 2048;
	s->nvcsw = 2;
	s->nivcsw = 40;
	s->load1 = 0.05;
	s->start_ns = 1714560000000000000LL;
	s->nmetrics = 1;
	strcpy(s->metrics[0].key, "elapsed_ns");
	s->metrics[0].value = 1499000000.0;
	s->has_checksum = 1;
	strcpy(s->checksum, "deadbeef");
	gen_msg("sample", &m);
	s->has_checksum = 0;
	s->status = PROTO_ST_SIGNAL;
	s->signal = 9;
	s->exit_code = -1;
	strcpy(s->err_tail, "Killed");
	gen_msg("sample-signal", &m);

	memset(&m, 0, sizeof m);
	m.type = PROTO_ACK;
	m.u.ack.seq = 4;
	gen_msg("ack", &m);

	memset(&m, 0, sizeof m);
	m.type = PROTO_DONE;
	m.u.done.nsamples = 5;
	m.u.done.ok = 1;
	gen_msg("done", &m);

	memset(&m, 0, sizeof m);
	m.type = PROTO_BYE;
	gen_msg("bye", &m);

	seal_clear(&gen_seal);
	return (0);
}
