/* Sealed frames: AES-256-GCM through OpenSSL 3's EVP interface. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "proto/be.h"
#include "proto/ident.h"
#include "proto/seal.h"

#define SEAL_NONCE_LEN	12
#define SEAL_RUNID_MAX	63
#define SEAL_KEYLINE	"ORCH-KEY 1 "

/* Offsets of the header fields. */
#define SEAL_OFF_MAGIC	0
#define SEAL_OFF_VER	2
#define SEAL_OFF_DIR	3
#define SEAL_OFF_TAG	4
#define SEAL_OFF_SEQ	20
#define SEAL_OFF_RSVD	28

/* Builds the nonce of a frame: 3 zero bytes, the direction, the sequence. */
static void
seal_nonce(uint8_t nonce[SEAL_NONCE_LEN], uint8_t dir, uint64_t seq)
{
	memset(nonce, 0, 3);
	nonce[3] = dir;
	be64_put(nonce + 4, seq);
}

/* Computes the run tag; returns 0 or PROTO_ERR_CRYPTO. */
static int
seal_runtag_checked(const char *run_id, uint8_t tag[PROTO_RUNTAG_LEN])
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	unsigned int	mdlen;

	if (EVP_Digest(run_id, strlen(run_id), md, &mdlen, EVP_sha256(),
	    NULL) != 1 || mdlen < PROTO_RUNTAG_LEN)
		return (PROTO_ERR_CRYPTO);
	memcpy(tag, md, PROTO_RUNTAG_LEN);
	return (0);
}

/* Returns 1 when run_id is an identifier (proto/ident.h) of 1..63 bytes. */
static int
seal_runid_valid(const char *run_id, size_t len)
{
	return (ident_ok(run_id, len, SEAL_RUNID_MAX + 1));
}

/* Returns the value of a lowercase hex digit, or -1. */
static int
seal_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	return (-1);
}

/* Sets up one side of a session with its key, run tag and directions. */
int
seal_init(struct seal *s, const uint8_t key[PROTO_KEY_LEN], const char *run_id,
    int as_agent)
{
	int	r;

	memset(s, 0, sizeof *s);
	if ((r = seal_runtag_checked(run_id, s->runtag)) != 0)
		goto out;
	memcpy(s->key, key, PROTO_KEY_LEN);
	s->send_dir = as_agent ? SEAL_DIR_TO_COORD : SEAL_DIR_TO_AGENT;
	s->recv_dir = as_agent ? SEAL_DIR_TO_AGENT : SEAL_DIR_TO_COORD;
	r = 0;
out:
	if (r != 0)
		OPENSSL_cleanse(s, sizeof *s);
	return (r);
}

/* Wipes the whole state, key included. */
void
seal_clear(struct seal *s)
{
	if (s != NULL)
		OPENSSL_cleanse(s, sizeof *s);
}

/* Fills key from the OpenSSL random generator. */
int
seal_keygen(uint8_t key[PROTO_KEY_LEN])
{
	if (RAND_bytes(key, PROTO_KEY_LEN) != 1) {
		OPENSSL_cleanse(key, PROTO_KEY_LEN);
		return (PROTO_ERR_CRYPTO);
	}
	return (0);
}

/*
 * Computes the run tag; a crypto failure leaves a zero tag, which seal_init
 * refuses.
 */
void
seal_runtag(const char *run_id, uint8_t tag[PROTO_RUNTAG_LEN])
{
	if (seal_runtag_checked(run_id, tag) != 0)
		memset(tag, 0, PROTO_RUNTAG_LEN);
}

/* Encrypts pt under the next sequence number into a new frame. */
int
seal_frame(struct seal *s, const uint8_t *pt, size_t ptlen, uint8_t **out,
    size_t *outlen)
{
	EVP_CIPHER_CTX	*ctx = NULL;
	uint8_t		*buf = NULL, nonce[SEAL_NONCE_LEN];
	uint64_t	 seq;
	int		 n, r = PROTO_ERR_CRYPTO;

	*out = NULL;
	*outlen = 0;
	if (ptlen > PROTO_FRAME_MAX - SEAL_OVERHEAD) {
		r = PROTO_ERR_TOOBIG;
		goto out;
	}
	/* A wrapped counter would reuse a nonce; 2^64 frames never happen. */
	if (s->send_seq == UINT64_MAX)
		goto out;
	/*
	 * Count first: even a failed seal must not leave its nonce for
	 * reuse.
	 */
	seq = ++s->send_seq;

	if ((buf = malloc(SEAL_OVERHEAD + ptlen)) == NULL) {
		r = PROTO_ERR_NOMEM;
		goto out;
	}
	buf[SEAL_OFF_MAGIC] = 'O';
	buf[SEAL_OFF_MAGIC + 1] = 'R';
	buf[SEAL_OFF_VER] = PROTO_VERSION;
	buf[SEAL_OFF_DIR] = s->send_dir;
	memcpy(buf + SEAL_OFF_TAG, s->runtag, PROTO_RUNTAG_LEN);
	be64_put(buf + SEAL_OFF_SEQ, seq);
	buf[SEAL_OFF_RSVD] = 0;
	buf[SEAL_OFF_RSVD + 1] = 0;
	seal_nonce(nonce, s->send_dir, seq);

	if ((ctx = EVP_CIPHER_CTX_new()) == NULL)
		goto out;
	if (EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, SEAL_NONCE_LEN,
	    NULL) != 1 ||
	    EVP_EncryptInit_ex(ctx, NULL, NULL, s->key, nonce) != 1)
		goto out;
	if (EVP_EncryptUpdate(ctx, NULL, &n, buf, SEAL_HDR_LEN) != 1)
		goto out;
	if (ptlen > 0) {
		if (EVP_EncryptUpdate(ctx, buf + SEAL_HDR_LEN, &n, pt,
		    (int)ptlen) != 1 || (size_t)n != ptlen)
			goto out;
	}
	if (EVP_EncryptFinal_ex(ctx, buf + SEAL_HDR_LEN + ptlen, &n) != 1 ||
	    n != 0)
		goto out;
	if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, PROTO_TAG_LEN,
	    buf + SEAL_HDR_LEN + ptlen) != 1)
		goto out;

	*out = buf;
	*outlen = SEAL_OVERHEAD + ptlen;
	buf = NULL;
	r = 0;
out:
	EVP_CIPHER_CTX_free(ctx);
	if (buf != NULL) {
		OPENSSL_cleanse(buf, SEAL_OVERHEAD + ptlen);
		free(buf);
	}
	return (r);
}

/*
 * Checks a received frame's header, then authenticates and decrypts it.
 * Long: each check of a received frame, in the order they must run
 * (header, replay, then decryption), with one exit.
 */
int
seal_open(struct seal *s, const uint8_t *frame, size_t len, uint8_t **pt,
    size_t *ptlen)
{
	EVP_CIPHER_CTX	*ctx = NULL;
	uint8_t		*buf = NULL, nonce[SEAL_NONCE_LEN], tag[PROTO_TAG_LEN];
	uint64_t	 seq;
	size_t		 ctlen = 0;
	int		 n, r = PROTO_ERR_CRYPTO;

	*pt = NULL;
	*ptlen = 0;
	if (len < SEAL_OVERHEAD) {
		r = PROTO_ERR_SHORT;
		goto out;
	}
	if (len > PROTO_FRAME_MAX) {
		r = PROTO_ERR_TOOBIG;
		goto out;
	}
	if (frame[SEAL_OFF_MAGIC] != 'O' || frame[SEAL_OFF_MAGIC + 1] != 'R') {
		r = PROTO_ERR_MAGIC;
		goto out;
	}
	if (frame[SEAL_OFF_VER] != PROTO_VERSION) {
		/*
		 * The one change on failure: it lets the caller name the
		 * version.
		 */
		s->peer_version = frame[SEAL_OFF_VER];
		r = PROTO_ERR_VERSION;
		goto out;
	}
	if (frame[SEAL_OFF_DIR] != s->recv_dir) {
		r = PROTO_ERR_DIRECTION;
		goto out;
	}
	if (memcmp(frame + SEAL_OFF_TAG, s->runtag, PROTO_RUNTAG_LEN) != 0) {
		r = PROTO_ERR_RUN;
		goto out;
	}
	seq = be64_get(frame + SEAL_OFF_SEQ);
	if (seq <= s->recv_seq) {
		r = PROTO_ERR_REPLAY;
		goto out;
	}

	ctlen = len - SEAL_OVERHEAD;
	/* One spare byte so that an empty plaintext still has a buffer. */
	if ((buf = malloc(ctlen + 1)) == NULL) {
		r = PROTO_ERR_NOMEM;
		goto out;
	}
	seal_nonce(nonce, s->recv_dir, seq);
	memcpy(tag, frame + SEAL_HDR_LEN + ctlen, PROTO_TAG_LEN);

	if ((ctx = EVP_CIPHER_CTX_new()) == NULL)
		goto out;
	if (EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, SEAL_NONCE_LEN,
	    NULL) != 1 ||
	    EVP_DecryptInit_ex(ctx, NULL, NULL, s->key, nonce) != 1)
		goto out;
	if (EVP_DecryptUpdate(ctx, NULL, &n, frame, SEAL_HDR_LEN) != 1)
		goto out;
	if (ctlen > 0) {
		if (EVP_DecryptUpdate(ctx, buf, &n, frame + SEAL_HDR_LEN,
		    (int)ctlen) != 1 || (size_t)n != ctlen)
			goto out;
	}
	if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, PROTO_TAG_LEN,
	    tag) != 1)
		goto out;
	if (EVP_DecryptFinal_ex(ctx, buf + ctlen, &n) != 1) {
		r = PROTO_ERR_TAG;
		goto out;
	}

	s->recv_seq = seq;
	buf[ctlen] = 0;
	*pt = buf;
	*ptlen = ctlen;
	buf = NULL;
	r = 0;
out:
	EVP_CIPHER_CTX_free(ctx);
	if (buf != NULL) {
		/* Unauthenticated plaintext must not outlive the failure. */
		OPENSSL_cleanse(buf, ctlen + 1);
		free(buf);
	}
	return (r);
}

/* Writes the key line for an agent's stdin into buf. */
int
seal_keyline_format(const uint8_t key[PROTO_KEY_LEN], const char *run_id,
    char *buf, size_t len)
{
	static const char	 digits[] = "0123456789abcdef";
	char			 hex[2 * PROTO_KEY_LEN + 1];
	size_t			 i;
	int			 n, r;

	if (!seal_runid_valid(run_id, strlen(run_id))) {
		r = PROTO_ERR_FIELD;
		goto out;
	}
	for (i = 0; i < PROTO_KEY_LEN; i++) {
		hex[2 * i] = digits[key[i] >> 4];
		hex[2 * i + 1] = digits[key[i] & 15];
	}
	hex[2 * PROTO_KEY_LEN] = '\0';
	n = snprintf(buf, len, "%s%s %s\n", SEAL_KEYLINE, hex, run_id);
	if (n < 0 || (size_t)n >= len) {
		if (len > 0)
			OPENSSL_cleanse(buf, len);
		r = PROTO_ERR_TOOBIG;
		goto out;
	}
	r = 0;
out:
	OPENSSL_cleanse(hex, sizeof hex);
	return (r);
}

/* Parses a key line, with or without its newline; anything else is refused. */
int
seal_keyline_parse(const char *line, uint8_t key[PROTO_KEY_LEN], char *run_id,
    size_t run_id_len)
{
	uint8_t		 k[PROTO_KEY_LEN];
	const char	*p, *id;
	size_t		 i, idlen;
	int		 hi, lo, r = PROTO_ERR_FIELD;

	if (strncmp(line, SEAL_KEYLINE, strlen(SEAL_KEYLINE)) != 0)
		goto out;
	p = line + strlen(SEAL_KEYLINE);
	for (i = 0; i < PROTO_KEY_LEN; i++) {
		/* A NUL ends the line early and fails here, never read past. */
		if ((hi = seal_hexval(p[2 * i])) == -1 ||
		    (lo = seal_hexval(p[2 * i + 1])) == -1)
			goto out;
		k[i] = (uint8_t)(hi << 4 | lo);
	}
	p += 2 * PROTO_KEY_LEN;
	if (*p++ != ' ')
		goto out;
	id = p;
	idlen = strcspn(id, "\n");
	if (id[idlen] == '\n' && id[idlen + 1] != '\0')
		goto out;
	if (!seal_runid_valid(id, idlen) || idlen >= run_id_len)
		goto out;

	memcpy(key, k, PROTO_KEY_LEN);
	memcpy(run_id, id, idlen);
	run_id[idlen] = '\0';
	r = 0;
out:
	OPENSSL_cleanse(k, sizeof k);
	return (r);
}
