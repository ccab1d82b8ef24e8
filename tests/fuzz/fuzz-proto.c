/*
 * libFuzzer target for proto/: every input is tried as a sealed frame (an
 * agent's receiving side, fixed key and run id) and as a bare message. A
 * message that decodes must encode again, and the re-encoding must decode
 * to the same bytes: decode and encode agree on what is valid.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *       tests/fuzz/fuzz-proto.c proto/seal.c proto/msg.c proto/hash.c \
 *       proto/log.c $(pkg-config --cflags --libs msgpack libcrypto) \
 *       -lpthread -o /tmp/fuzz-proto
 *   /tmp/fuzz-proto -max_total_time=60 tests/fuzz/corpus-proto
 *
 * tests/fuzz/gen-corpus-proto.c writes the seed corpus.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"
#include "proto/seal.h"

/* Keep in step with gen-corpus-proto.c. */
#define FUZZ_RUN_ID	"fuzz-run-1"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The fixed key: bytes 0x40, 0x41, ... */
static void
fuzz_key(uint8_t key[PROTO_KEY_LEN])
{
	int	i;

	for (i = 0; i < PROTO_KEY_LEN; i++)
		key[i] = (uint8_t)(0x40 + i);
}

/* Decodes buf; when it is a message, checks that it survives a round trip. */
static void
fuzz_decode(const uint8_t *buf, size_t len)
{
	struct proto_msg	 m, m2;
	uint8_t			*enc = NULL, *enc2 = NULL;
	size_t			 elen, elen2;
	int			 r;

	if (proto_decode(buf, len, &m) != 0) {
		/* On error nothing is left to free. */
		if (m.type != 0)
			abort();
		return;
	}
	r = proto_encode(&m, &enc, &elen);
	/* Floats widen and integers grow: a full input may re-encode larger. */
	if (r == PROTO_ERR_TOOBIG)
		goto out;
	if (r != 0)
		abort();
	if (proto_decode(enc, elen, &m2) != 0)
		abort();
	if (proto_encode(&m2, &enc2, &elen2) != 0 || elen2 != elen ||
	    memcmp(enc, enc2, elen) != 0)
		abort();
	proto_msg_free(&m2);
out:
	free(enc);
	free(enc2);
	proto_msg_free(&m);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seal	 s;
	uint8_t		 key[PROTO_KEY_LEN], *pt;
	size_t		 ptlen;

	fuzz_key(key);
	if (seal_init(&s, key, FUZZ_RUN_ID, 1) != 0)
		abort();
	if (seal_open(&s, data, size, &pt, &ptlen) == 0) {
		if (s.recv_seq == 0)
			abort();
		fuzz_decode(pt, ptlen);
		free(pt);
	} else if (s.recv_seq != 0 || pt != NULL)
		abort();
	seal_clear(&s);
	fuzz_decode(data, size);
	return (0);
}
