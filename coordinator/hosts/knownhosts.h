/*
 * known_hosts as OpenSSH reads it: plain and hashed (|1|salt|hash) host
 * fields, [host]:port names, patterns with * ? and !negation, and the
 * @revoked and @cert-authority markers. A host is known when the file
 * holds a key of any type for it; a different key, whatever its type, is
 * a changed key. Lines are read one at a time, whole, of any length (as
 * OpenSSH reads them): a line that cannot be parsed is skipped with a
 * warning naming PATH:LINE, and never hides the lines after it; when its
 * host field names the host, the host is "unverifiable", never new. In a
 * file: revoked, then known, changed, unverifiable, CA only, new.
 */
#ifndef COORDINATOR_KNOWNHOSTS_H
#define COORDINATOR_KNOWNHOSTS_H

#include <stddef.h>

#define KH_LINE_MAX	16384	/* longest line orch writes; a key is
				   at most 3/4 of it, decoded */
#define KH_FP_LEN	128	/* "ED25519 key SHA256:..." */
#define KH_TYPES_MAX	8	/* key types remembered per host */

enum kh_status {
	KH_KNOWN,	/* the key is pinned for the host */
	KH_NEW,		/* no key of any type for the host */
	KH_CHANGED,	/* the host has other keys, not this one */
	KH_REVOKED,	/* the key is marked @revoked */
	KH_CA_ONLY,	/* only a @cert-authority names the host */
	KH_UNVERIFIABLE	/* only lines skipped as unreadable name it */
};

struct kh_result {
	enum kh_status	 status;
	int		 line;		/* the line that decided, or 0 */
	char		 known_fp[KH_FP_LEN];	/* a pinned key, when CHANGED */
	char		 types[KH_TYPES_MAX][32];	/* key types pinned */
	size_t		 ntypes;
};

/*
 * Looks name ("host", or "[host]:port" for a port other than 22) up in
 * path for the key blob key[0..keylen) (NULL: only fill res->types).
 * warn, when not NULL, gets each skipped line's "PATH:LINE: why". A
 * missing file is an empty one. Returns 0 with *res set, or -1 when the
 * file cannot be read (err).
 */
int	knownhosts_check(const char *path, const char *name,
	    const unsigned char *key, size_t keylen, struct kh_result *res,
	    void (*warn)(const char *), char *err, size_t errlen);

/* Writes "TYPE key SHA256:..." (as ssh-keygen -l) for a key blob. */
void	knownhosts_fingerprint(const unsigned char *key, size_t keylen,
	    char *out, size_t len);

/*
 * Writes the known_hosts line "name keytype base64 comment\n" for a key
 * blob. Returns 0, or -1 when the blob is malformed or out is too small.
 */
int	knownhosts_line(const char *name, const unsigned char *key,
	    size_t keylen, const char *comment, char *out, size_t len);

#endif
