/* SHA-256 through OpenSSL's EVP interface. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "proto/hash.h"

static void
hash_hex(const unsigned char *md, char hex[PROTO_SHA_HEX])
{
	static const char	digits[] = "0123456789abcdef";
	int			i;

	for (i = 0; i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
}

int
hash_fd(int fd, char hex[PROTO_SHA_HEX])
{
	EVP_MD_CTX	*ctx;
	unsigned char	 md[EVP_MAX_MD_SIZE], buf[65536];
	unsigned int	 mdlen;
	ssize_t		 n;
	off_t		 off = 0;
	int		 r = -1, saved = 0;

	if ((ctx = EVP_MD_CTX_new()) == NULL) {
		errno = ENOMEM;
		return (-1);
	}
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		saved = EIO;
		goto out;
	}
	for (;;) {
		n = pread(fd, buf, sizeof buf, off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			saved = errno;
			goto out;
		}
		if (n == 0)
			break;
		off += n;
		if (EVP_DigestUpdate(ctx, buf, (size_t)n) != 1) {
			saved = EIO;
			goto out;
		}
	}
	if (EVP_DigestFinal_ex(ctx, md, &mdlen) != 1 || mdlen != 32) {
		saved = EIO;
		goto out;
	}
	hash_hex(md, hex);
	r = 0;
out:
	EVP_MD_CTX_free(ctx);
	if (r != 0)
		errno = saved;
	return (r);
}

int
hash_file(const char *path, char hex[PROTO_SHA_HEX])
{
	int	fd, r, saved;

	if ((fd = open(path, O_RDONLY)) == -1)
		return (-1);
	r = hash_fd(fd, hex);
	saved = errno;
	close(fd);
	errno = saved;
	return (r);
}

int
hash_buf(const void *buf, size_t len, char hex[PROTO_SHA_HEX])
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	unsigned int	mdlen;

	if (EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != 32)
		return (-1);
	hash_hex(md, hex);
	return (0);
}

int
hash_valid(const char *s)
{
	size_t	i;

	for (i = 0; i < 64; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return (0);
	}
	return (s[64] == '\0');
}
