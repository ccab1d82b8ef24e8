/* known_hosts, read line by line as OpenSSH reads it (see knownhosts.h). */
#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "coordinator/hosts/knownhosts.h"
#include "proto/be.h"

#define KH_BLOB_MAX	(KH_LINE_MAX / 4 * 3)	/* a key decoded from a line */

enum kh_marker {
	KH_PLAIN,
	KH_MARK_REVOKED,
	KH_MARK_CA
};

/* The state of one lookup. */
struct kh_scan {
	const char		*path;
	const char		*name;
	const unsigned char	*key;
	size_t			 keylen;
	struct kh_result	*res;
	void			(*warn)(const char *);
	int			 lineno;
	int			 known_line;	/* our key, pinned */
	int			 other_line;	/* another key for the host */
	int			 revoked_line;	/* our key, @revoked */
	int			 ca_line;	/* a @cert-authority names it */
	int			 unver_line;	/* a skipped line names it */
};

/* Reports a skipped line as "PATH:LINE: why". */
static void
kh_warn(struct kh_scan *k, const char *why)
{
	char	msg[1024];

	if (k->warn == NULL)
		return;
	snprintf(msg, sizeof msg, "%s:%d: %s", k->path, k->lineno, why);
	k->warn(msg);
}

/* Decodes base64 into out; returns the length or -1. */
static int
kh_b64dec(const char *in, unsigned char *out, size_t outlen)
{
	size_t	len = strlen(in), pad = 0;
	int	n;

	if (len == 0 || len % 4 != 0 || len / 4 * 3 > outlen ||
	    len > INT32_MAX)
		return (-1);
	if (in[len - 1] == '=')
		pad++;
	if (len > 1 && in[len - 2] == '=')
		pad++;
	if ((n = EVP_DecodeBlock(out, (const unsigned char *)in, (int)len)) < 0)
		return (-1);
	return (n - (int)pad);
}

/* Copies the key type at the start of a key blob into out; -1 if none. */
static int
kh_blob_type(const unsigned char *key, size_t keylen, char *out, size_t len)
{
	uint32_t	n;

	if (keylen < 4)
		return (-1);
	n = be32_get(key);
	if (n == 0 || n >= len || n > keylen - 4 ||
	    memchr(key + 4, '\0', n) != NULL)
		return (-1);
	memcpy(out, key + 4, n);
	out[n] = '\0';
	return (0);
}

void
knownhosts_fingerprint(const unsigned char *key, size_t keylen, char *out,
    size_t len)
{
	unsigned char	 md[EVP_MAX_MD_SIZE], b64[EVP_MAX_MD_SIZE * 2];
	unsigned int	 mdlen = 0;
	char		 type[64];
	const char	*label;
	int		 n;

	if (kh_blob_type(key, keylen, type, sizeof type) != 0)
		snprintf(type, sizeof type, "unknown");
	if (strcmp(type, "ssh-ed25519") == 0)
		label = "ED25519";
	else if (strncmp(type, "ecdsa-sha2-", 11) == 0)
		label = "ECDSA";
	else if (strcmp(type, "ssh-rsa") == 0)
		label = "RSA";
	else if (strcmp(type, "ssh-dss") == 0)
		label = "DSA";
	else if (strcmp(type, "sk-ssh-ed25519@openssh.com") == 0)
		label = "ED25519-SK";
	else if (strcmp(type, "sk-ecdsa-sha2-nistp256@openssh.com") == 0)
		label = "ECDSA-SK";
	else
		label = type;
	if (EVP_Digest(key, keylen, md, &mdlen, EVP_sha256(), NULL) != 1) {
		snprintf(out, len, "%s key (no fingerprint)", label);
		return;
	}
	n = EVP_EncodeBlock(b64, md, (int)mdlen);
	while (n > 0 && b64[n - 1] == '=')
		n--;
	snprintf(out, len, "%s key SHA256:%.*s", label, n, (char *)b64);
}

int
knownhosts_line(const char *name, const unsigned char *key, size_t keylen,
    const char *comment, char *out, size_t len)
{
	char	type[64], *b64;
	int	n, r = -1;

	if (kh_blob_type(key, keylen, type, sizeof type) != 0 ||
	    keylen > KH_BLOB_MAX)
		return (-1);
	if ((b64 = malloc(keylen / 3 * 4 + 8)) == NULL)
		return (-1);
	EVP_EncodeBlock((unsigned char *)b64, key, (int)keylen);
	n = snprintf(out, len, "%s %s %s%s%s\n", name, type, b64,
	    comment != NULL ? " " : "", comment != NULL ? comment : "");
	if (n >= 0 && (size_t)n < len)
		r = 0;
	free(b64);
	return (r);
}

/* OpenSSH's match_pattern: '*' any run, '?' any one byte, no case. */
static int
kh_glob(const char *s, const char *p)
{
	for (;; s++, p++) {
		if (*p == '\0')
			return (*s == '\0');
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			if (p[1] == '\0')
				return (1);
			for (; *s != '\0'; s++) {
				if (kh_glob(s, p + 1))
					return (1);
			}
			return (0);
		}
		if (*s == '\0')
			return (0);
		if (*p != '?' && tolower((unsigned char)*p) !=
		    tolower((unsigned char)*s))
			return (0);
	}
}

/*
 * Returns 1 when a host field names name, 0 when not, -1 when the field is
 * a malformed hashed name. Patterns are matched as OpenSSH does: a
 * matching !negation excludes the host whatever else matches.
 */
static int
kh_match(char *field, const char *name)
{
	unsigned char	 salt[256], hash[256], mac[EVP_MAX_MD_SIZE];
	char		*h, *tok, *save = NULL;
	size_t		 maclen = 0;
	int		 saltlen, hashlen, matched = 0, neg;

	if (strncmp(field, "|1|", 3) == 0) {
		if ((h = strchr(field + 3, '|')) == NULL)
			return (-1);
		*h++ = '\0';
		saltlen = kh_b64dec(field + 3, salt, sizeof salt);
		hashlen = kh_b64dec(h, hash, sizeof hash);
		if (saltlen <= 0 || hashlen != 20)
			return (-1);
		if (EVP_Q_mac(NULL, "HMAC", NULL, "SHA1", NULL, salt,
		    (size_t)saltlen, (const unsigned char *)name, strlen(name),
		    mac, sizeof mac, &maclen) == NULL || maclen != 20)
			return (0);
		return (memcmp(mac, hash, 20) == 0);
	}
	for (tok = strtok_r(field, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		neg = *tok == '!';
		if (kh_glob(name, tok + neg)) {
			if (neg)
				return (0);
			matched = 1;
		}
	}
	return (matched);
}

/* Remembers a key type pinned for the host (once). */
static void
kh_add_type(struct kh_result *res, const char *type)
{
	size_t	i;

	for (i = 0; i < res->ntypes; i++) {
		if (strcmp(res->types[i], type) == 0)
			return;
	}
	if (res->ntypes < KH_TYPES_MAX && strlen(type) <
	    sizeof res->types[0])
		snprintf(res->types[res->ntypes++], sizeof res->types[0], "%s",
		    type);
}

/*
 * Reports a skipped line; when its host field (host, NULL if none) names
 * the host, the host is known but this pin cannot be read: "unverifiable",
 * never new.
 */
static void
kh_skip(struct kh_scan *k, char *host, const char *why)
{
	kh_warn(k, why);
	if (host != NULL && k->unver_line == 0 && kh_match(host, k->name) == 1)
		k->unver_line = k->lineno;
}

/* Returns the first blank-separated field of s (cut in place), or NULL. */
static char *
kh_first(char *s)
{
	char	*save = NULL;

	return (strtok_r(s, " \t", &save));
}

/* Handles one line (no newline, NUL-terminated). */
static void
kh_line(struct kh_scan *k, char *line, unsigned char *blob)
{
	enum kh_marker	 marker = KH_PLAIN;
	char		*f[3], *p = line, *save = NULL, type[64];
	int		 i, n, m;

	line[strcspn(line, "\r")] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '#')
		return;
	if (*p == '@') {
		n = (int)strcspn(p, " \t");
		if (n == 8 && strncmp(p, "@revoked", 8) == 0)
			marker = KH_MARK_REVOKED;
		else if (n == 15 && strncmp(p, "@cert-authority", 15) == 0)
			marker = KH_MARK_CA;
		else {
			kh_skip(k, kh_first(p + n), "unknown marker (want "
			    "@revoked or @cert-authority), line skipped");
			return;
		}
		p += n;
	}
	for (i = 0; i < 3; i++) {
		f[i] = strtok_r(i == 0 ? p : NULL, " \t", &save);
		if (f[i] == NULL) {
			kh_skip(k, i > 0 ? f[0] : NULL, "not HOSTS KEYTYPE "
			    "KEY, line skipped");
			return;
		}
	}
	if ((n = kh_b64dec(f[2], blob, KH_BLOB_MAX)) <= 0 ||
	    kh_blob_type(blob, (size_t)n, type, sizeof type) != 0) {
		kh_skip(k, f[0], "the key is not valid base64 of a key, line "
		    "skipped");
		return;
	}
	if (strcmp(type, f[1]) != 0) {
		kh_skip(k, f[0], "the key type does not match the key, line "
		    "skipped");
		return;
	}
	if ((m = kh_match(f[0], k->name)) == -1) {
		kh_warn(k, "malformed hashed host name, line skipped");
		return;
	}
	if (m == 0)
		return;
	switch (marker) {
	case KH_MARK_CA:
		if (k->ca_line == 0)
			k->ca_line = k->lineno;
		return;
	case KH_MARK_REVOKED:
		if (k->key != NULL && (size_t)n == k->keylen &&
		    memcmp(blob, k->key, k->keylen) == 0 &&
		    k->revoked_line == 0)
			k->revoked_line = k->lineno;
		return;
	case KH_PLAIN:
		break;
	}
	kh_add_type(k->res, type);
	if (k->key == NULL)
		return;
	if ((size_t)n == k->keylen && memcmp(blob, k->key, k->keylen) == 0) {
		if (k->known_line == 0)
			k->known_line = k->lineno;
	} else if (k->other_line == 0) {
		k->other_line = k->lineno;
		knownhosts_fingerprint(blob, (size_t)n, k->res->known_fp,
		    sizeof k->res->known_fp);
	}
}

/* A line with a NUL byte: skipped; its host field (before the NUL) counts. */
static void
kh_nul(struct kh_scan *k, char *line)
{
	char	*p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '@')
		p += strcspn(p, " \t");
	if (*p == '#' || strpbrk(p, " \t") == NULL)
		p = NULL;
	kh_skip(k, p != NULL ? kh_first(p) : NULL, "holds a NUL byte, line "
	    "skipped");
}

/*
 * The file's one pass (each line read whole, of any length, as OpenSSH
 * reads it: a pin after 800 names is a pin), then the verdict from what
 * the pass found (revoked, known, changed or none), each in words of its
 * own.
 */
int
knownhosts_check(const char *path, const char *name,
    const unsigned char *key, size_t keylen, struct kh_result *res,
    void (*warn)(const char *), char *err, size_t errlen)
{
	struct kh_scan	 k;
	FILE		*f;
	char		*line = NULL;
	unsigned char	*blob = NULL;
	size_t		 size = 0;
	ssize_t		 len;
	int		 r = -1;

	memset(res, 0, sizeof *res);
	memset(&k, 0, sizeof k);
	k.path = path;
	k.name = name;
	k.key = key;
	k.keylen = keylen;
	k.res = res;
	k.warn = warn;
	if ((f = fopen(path, "r")) == NULL) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "cannot read %s: %s", path,
			    strerror(errno));
			return (-1);
		}
		res->status = KH_NEW;
		return (0);
	}
	if ((blob = malloc(KH_BLOB_MAX)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (;;) {
		errno = 0;
		if ((len = getline(&line, &size, f)) == -1)
			break;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		k.lineno++;
		if (strlen(line) != (size_t)len)
			kh_nul(&k, line);
		else
			kh_line(&k, line, blob);
	}
	if (ferror(f) || errno == ENOMEM) {
		snprintf(err, errlen, "cannot read %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if (k.revoked_line != 0) {
		res->status = KH_REVOKED;
		res->line = k.revoked_line;
	} else if (k.known_line != 0) {
		res->status = KH_KNOWN;
		res->line = k.known_line;
	} else if (k.other_line != 0) {
		res->status = KH_CHANGED;
		res->line = k.other_line;
	} else if (k.unver_line != 0) {
		res->status = KH_UNVERIFIABLE;
		res->line = k.unver_line;
	} else if (k.ca_line != 0) {
		res->status = KH_CA_ONLY;
		res->line = k.ca_line;
	} else
		res->status = KH_NEW;
	r = 0;
out:
	free(line);
	free(blob);
	fclose(f);
	return (r);
}
