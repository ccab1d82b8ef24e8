/*
 * Sealed frames: AES-256-GCM under a per-run key, one frame per message.
 *
 *   header (authenticated, not encrypted), 30 bytes:
 *     "OR"  magic            2
 *     version (PROTO_VERSION) 1
 *     direction              1   1: coordinator->agent, 2: agent->coordinator
 *     run tag                16  first 16 bytes of SHA-256(run id)
 *     sequence               8   big-endian, from 1, strictly increasing
 *     reserved               2   zero
 *   ciphertext               n
 *   tag                      16
 *
 * The 12-byte nonce is 3 zero bytes, the direction, then the sequence: a key
 * never sees one nonce twice as long as each side counts up.
 */
#ifndef PROTO_SEAL_H
#define PROTO_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"

#define SEAL_HDR_LEN	30
#define SEAL_OVERHEAD	(SEAL_HDR_LEN + PROTO_TAG_LEN)

#define SEAL_DIR_TO_AGENT	1
#define SEAL_DIR_TO_COORD	2

struct seal {
	uint8_t		key[PROTO_KEY_LEN];
	uint8_t		runtag[PROTO_RUNTAG_LEN];
	uint8_t		send_dir;	/* direction of frames we seal */
	uint8_t		recv_dir;	/* direction we accept */
	uint64_t	send_seq;	/* last sequence sent */
	uint64_t	recv_seq;	/* last sequence accepted */
	int		peer_version;	/* version byte of the last frame
					   refused with PROTO_ERR_VERSION */
};

/*
 * Sets up s for one side of a session: as_agent selects the directions.
 * Returns 0, or PROTO_ERR_CRYPTO.
 */
int	seal_init(struct seal *s, const uint8_t key[PROTO_KEY_LEN],
	    const char *run_id, int as_agent);

/* Wipes the key. */
void	seal_clear(struct seal *s);

/* Fills key with PROTO_KEY_LEN random bytes. Returns 0 or PROTO_ERR_CRYPTO. */
int	seal_keygen(uint8_t key[PROTO_KEY_LEN]);

/* Computes the 16-byte run tag of a run id. */
void	seal_runtag(const char *run_id, uint8_t tag[PROTO_RUNTAG_LEN]);

/*
 * Seals plaintext into a new frame (*out, *outlen; free()). Returns 0 or a
 * negative PROTO_ERR_* code (TOOBIG when the frame would exceed
 * PROTO_FRAME_MAX).
 */
int	seal_frame(struct seal *s, const uint8_t *pt, size_t ptlen,
	    uint8_t **out, size_t *outlen);

/*
 * Opens a received frame. Checks, in this order and before anything is
 * decrypted: size, magic, version, direction, run tag, sequence; then the
 * tag. On success *pt (free()) holds the plaintext and the sequence is
 * advanced; on any failure nothing changes in s. Returns 0 or a negative
 * PROTO_ERR_* code.
 */
int	seal_open(struct seal *s, const uint8_t *frame, size_t len,
	    uint8_t **pt, size_t *ptlen);

/*
 * Key line for an agent's stdin: "ORCH-KEY 1 <64 hex> <run id>\n".
 * seal_keyline_parse returns 0 or PROTO_ERR_FIELD.
 */
int	seal_keyline_format(const uint8_t key[PROTO_KEY_LEN],
	    const char *run_id, char *buf, size_t len);
int	seal_keyline_parse(const char *line, uint8_t key[PROTO_KEY_LEN],
	    char *run_id, size_t run_id_len);

#endif
