/* SHA-256 of files and buffers, as lowercase hex. */
#ifndef PROTO_HASH_H
#define PROTO_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"

/*
 * Hashes the file at path into hex (PROTO_SHA_HEX bytes). Returns 0, or -1
 * with errno set (EIO when the crypto library fails).
 */
int	hash_file(const char *path, char hex[PROTO_SHA_HEX]);

/* Hashes an open file from its start; as hash_file. */
int	hash_fd(int fd, char hex[PROTO_SHA_HEX]);

/* Hashes a buffer; returns 0 or -1. */
int	hash_buf(const void *buf, size_t len, char hex[PROTO_SHA_HEX]);

/* Returns 1 when s is 64 lowercase hex digits, else 0. */
int	hash_valid(const char *s);

#endif
