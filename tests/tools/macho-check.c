/*
 * macho-check: checks that files are macOS executables fit for a host, by
 * reading their Mach-O headers (no Apple tool needed). For each FILE:
 *
 *   --cpu=arm64        a thin 64-bit Mach-O executable (MH_EXECUTE) for it
 *   --minos=X.Y        LC_BUILD_VERSION for macOS with minos <= X.Y
 *   --signed           LC_CODE_SIGNATURE with a CodeDirectory whose SHA-256
 *                      page hashes match the file (what the kernel checks
 *                      of an ad-hoc signature on arm64)
 *   --dylibs=A,B       every LC_LOAD_DYLIB (and weak, reexport, lazy,
 *                      upward) is one of A, B
 *
 *   macho-check --cpu=arm64 --minos=12.0 --signed \
 *       --dylibs=/usr/lib/libSystem.B.dylib FILE...
 *
 * Prints one line per file and exits 0 when every file passes, 1 when one
 * fails (with the reason), 2 on bad usage.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/hash.h"
#include "proto/proto.h"

#define MC_FILE_MAX	(256u << 20)	/* largest file read */
#define MC_ERR_LEN	256

#define MH_MAGIC_64		0xfeedfacfu
#define MH_EXECUTE		2u
#define CPU_TYPE_ARM64		0x0100000cu
#define CPU_TYPE_X86_64		0x01000007u
#define LC_REQ_DYLD		0x80000000u
#define LC_LOAD_DYLIB		0x0cu
#define LC_LOAD_WEAK_DYLIB	(0x18u | LC_REQ_DYLD)
#define LC_REEXPORT_DYLIB	(0x1fu | LC_REQ_DYLD)
#define LC_LAZY_LOAD_DYLIB	0x20u
#define LC_LOAD_UPWARD_DYLIB	(0x23u | LC_REQ_DYLD)
#define LC_CODE_SIGNATURE	0x1du
#define LC_VERSION_MIN_MACOSX	0x24u
#define LC_BUILD_VERSION	0x32u
#define PLATFORM_MACOS		1u
#define CSMAGIC_EMBEDDED	0xfade0cc0u
#define CSMAGIC_CODEDIRECTORY	0xfade0c02u
#define CS_HASHTYPE_SHA256	2u
#define CS_ADHOC		0x2u

struct mc_opts {
	uint32_t	 cpu;		/* 0: any */
	uint32_t	 minos;		/* 0: not checked; else xxxx.yy.zz */
	int		 sign;		/* check the code signature */
	char		*dylibs;	/* allowed, comma separated, or NULL */
};

/* What one file holds, as read. */
struct mc_info {
	uint32_t	cpu;
	uint32_t	minos;		/* 0 when absent */
	int		signed_ok;	/* page hashes verified */
	int		adhoc;		/* CS_ADHOC: signed without an identity */
	unsigned	ndylibs;
	char		dylibs[512];	/* their names, comma separated */
	unsigned	npages;
};

static uint32_t
mc_le32(const unsigned char *p)
{
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24);
}

/* Code signature blobs are big-endian. */
static uint32_t
mc_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3]);
}

/* Parses "X.Y" or "X.Y.Z" into Mach-O's xxxx.yy.zz; returns 0 or -1. */
static int
mc_version(const char *s, uint32_t *v)
{
	unsigned	a = 0, b = 0, c = 0;
	int		n;

	n = sscanf(s, "%u.%u.%u", &a, &b, &c);
	if (n < 2 || a > 0xffff || b > 0xff || c > 0xff)
		return (-1);
	*v = a << 16 | b << 8 | c;
	return (0);
}

static void
mc_version_str(uint32_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
}

/* Returns 1 when name is in the comma-separated list. */
static int
mc_listed(const char *list, const char *name)
{
	size_t		n = strlen(name);
	const char	*p = list;

	while (*p != '\0') {
		size_t	l = strcspn(p, ",");

		if (l == n && strncmp(p, name, n) == 0)
			return (1);
		p += l;
		if (*p == ',')
			p++;
	}
	return (0);
}

/*
 * Checks the embedded signature at [off, off+size) of buf (len bytes):
 * a SuperBlob holding a SHA-256 CodeDirectory whose code slots hash the
 * file's pages up to codeLimit. Returns 0, or -1 with a reason in err.
 */
static int
mc_signature(const unsigned char *buf, size_t len, uint32_t off,
    uint32_t size, struct mc_info *info, char *err)
{
	const unsigned char	*sb, *cd = NULL;
	uint32_t		 count, i, cdoff, cdlen, hashoff, ncode;
	uint32_t		 limit, page;
	char			 want[PROTO_SHA_HEX], got[PROTO_SHA_HEX];

	if ((size_t)off + size > len || size < 12) {
		snprintf(err, MC_ERR_LEN, "code signature outside the file");
		return (-1);
	}
	sb = buf + off;
	if (mc_be32(sb) != CSMAGIC_EMBEDDED || mc_be32(sb + 4) > size) {
		snprintf(err, MC_ERR_LEN, "code signature: no embedded "
		    "signature SuperBlob");
		return (-1);
	}
	count = mc_be32(sb + 8);
	if (count > (size - 12) / 8) {
		snprintf(err, MC_ERR_LEN, "code signature: bad blob count");
		return (-1);
	}
	for (i = 0; i < count; i++) {
		cdoff = mc_be32(sb + 12 + 8 * i + 4);
		if (cdoff > size - 8)
			continue;
		if (mc_be32(sb + cdoff) == CSMAGIC_CODEDIRECTORY) {
			cd = sb + cdoff;
			break;
		}
	}
	if (cd == NULL) {
		snprintf(err, MC_ERR_LEN, "code signature: no CodeDirectory");
		return (-1);
	}
	cdlen = mc_be32(cd + 4);
	if (cdlen < 44 || cdlen > size - (uint32_t)(cd - sb)) {
		snprintf(err, MC_ERR_LEN, "code signature: CodeDirectory "
		    "truncated");
		return (-1);
	}
	hashoff = mc_be32(cd + 16);
	ncode = mc_be32(cd + 28);
	limit = mc_be32(cd + 32);
	if (cd[36] != 32 || cd[37] != CS_HASHTYPE_SHA256 || cd[39] == 0 ||
	    cd[39] > 24) {
		snprintf(err, MC_ERR_LEN, "code signature: not SHA-256 with "
		    "a sane page size");
		return (-1);
	}
	page = 1u << cd[39];
	if (limit > off || ncode != (limit + page - 1) / page ||
	    hashoff > cdlen || (cdlen - hashoff) / 32 < ncode) {
		snprintf(err, MC_ERR_LEN, "code signature: %u page hashes do "
		    "not cover the %u bytes before it", ncode, off);
		return (-1);
	}
	for (i = 0; i < ncode; i++) {
		size_t	 start = (size_t)i * page;
		size_t	 n = limit - start < page ? limit - start : page;
		int	 k;

		for (k = 0; k < 32; k++)
			snprintf(want + 2 * k, 3, "%02x", cd[hashoff + 32 * i + k]);
		if (hash_buf(buf + start, n, got) != 0) {
			snprintf(err, MC_ERR_LEN, "SHA-256 failed");
			return (-1);
		}
		if (strcmp(want, got) != 0) {
			snprintf(err, MC_ERR_LEN, "code signature: page %u's "
			    "hash does not match the file", i);
			return (-1);
		}
	}
	info->signed_ok = 1;
	info->adhoc = (mc_be32(cd + 12) & CS_ADHOC) != 0;
	info->npages = ncode;
	return (0);
}

/* Checks one file's contents; returns 0, or -1 with a reason in err. */
static int
mc_check(const unsigned char *buf, size_t len, const struct mc_opts *o,
    struct mc_info *info, char *err)
{
	uint32_t	ncmds, sizeofcmds, i, cmd, cmdsize, nameoff;
	uint32_t	sigoff = 0, sigsize = 0;
	size_t		at, len_used;
	int		has_sig = 0;
	char		v1[32], v2[32];

	memset(info, 0, sizeof *info);
	if (len < 32 || mc_le32(buf) != MH_MAGIC_64) {
		snprintf(err, MC_ERR_LEN, "not a thin 64-bit little-endian "
		    "Mach-O file");
		return (-1);
	}
	info->cpu = mc_le32(buf + 4);
	if (o->cpu != 0 && info->cpu != o->cpu) {
		snprintf(err, MC_ERR_LEN, "CPU type 0x%08x, want 0x%08x",
		    info->cpu, o->cpu);
		return (-1);
	}
	if (mc_le32(buf + 12) != MH_EXECUTE) {
		snprintf(err, MC_ERR_LEN, "file type %u, not an executable",
		    mc_le32(buf + 12));
		return (-1);
	}
	ncmds = mc_le32(buf + 16);
	sizeofcmds = mc_le32(buf + 20);
	if (sizeofcmds > len - 32) {
		snprintf(err, MC_ERR_LEN, "load commands past the end");
		return (-1);
	}
	at = 32;
	for (i = 0; i < ncmds; i++) {
		if (at + 8 > 32 + (size_t)sizeofcmds) {
			snprintf(err, MC_ERR_LEN, "load command %u past the "
			    "end", i);
			return (-1);
		}
		cmd = mc_le32(buf + at);
		cmdsize = mc_le32(buf + at + 4);
		if (cmdsize < 8 || at + cmdsize > 32 + (size_t)sizeofcmds) {
			snprintf(err, MC_ERR_LEN, "load command %u has a bad "
			    "size", i);
			return (-1);
		}
		switch (cmd) {
		case LC_CODE_SIGNATURE:
			if (cmdsize < 16)
				goto bad;
			has_sig = 1;
			sigoff = mc_le32(buf + at + 8);
			sigsize = mc_le32(buf + at + 12);
			break;
		case LC_BUILD_VERSION:
			if (cmdsize < 24)
				goto bad;
			if (mc_le32(buf + at + 8) == PLATFORM_MACOS)
				info->minos = mc_le32(buf + at + 12);
			break;
		case LC_VERSION_MIN_MACOSX:
			if (cmdsize < 16)
				goto bad;
			info->minos = mc_le32(buf + at + 8);
			break;
		case LC_LOAD_DYLIB:
		case LC_LOAD_WEAK_DYLIB:
		case LC_REEXPORT_DYLIB:
		case LC_LAZY_LOAD_DYLIB:
		case LC_LOAD_UPWARD_DYLIB:
			if (cmdsize < 24)
				goto bad;
			nameoff = mc_le32(buf + at + 8);
			if (nameoff >= cmdsize ||
			    memchr(buf + at + nameoff, '\0', cmdsize - nameoff)
			    == NULL)
				goto bad;
			info->ndylibs++;
			len_used = strlen(info->dylibs);
			snprintf(info->dylibs + len_used,
			    sizeof info->dylibs - len_used, "%s%s",
			    len_used > 0 ? "," : "",
			    (const char *)buf + at + nameoff);
			if (o->dylibs != NULL && !mc_listed(o->dylibs,
			    (const char *)buf + at + nameoff)) {
				snprintf(err, MC_ERR_LEN, "loads %.200s",
				    (const char *)buf + at + nameoff);
				return (-1);
			}
			break;
		}
		at += cmdsize;
	}
	if (o->minos != 0) {
		if (info->minos == 0) {
			snprintf(err, MC_ERR_LEN, "no macOS LC_BUILD_VERSION");
			return (-1);
		}
		if (info->minos > o->minos) {
			mc_version_str(info->minos, v1, sizeof v1);
			mc_version_str(o->minos, v2, sizeof v2);
			snprintf(err, MC_ERR_LEN, "needs macOS %s, want <= %s",
			    v1, v2);
			return (-1);
		}
	}
	if (o->sign) {
		if (!has_sig) {
			snprintf(err, MC_ERR_LEN, "no LC_CODE_SIGNATURE");
			return (-1);
		}
		if (mc_signature(buf, len, sigoff, sigsize, info, err) != 0)
			return (-1);
	}
	return (0);
bad:
	snprintf(err, MC_ERR_LEN, "load command %u (0x%x) is malformed", i,
	    cmd);
	return (-1);
}

/* Reads path whole (at most MC_FILE_MAX bytes); returns NULL on failure. */
static unsigned char *
mc_read(const char *path, size_t *len, char *err)
{
	FILE		*f;
	unsigned char	*buf = NULL;
	size_t		 n = 0, cap = 0, r;

	if ((f = fopen(path, "rb")) == NULL) {
		snprintf(err, MC_ERR_LEN, "%s", strerror(errno));
		return (NULL);
	}
	for (;;) {
		if (n == cap) {
			unsigned char	*nb;

			if (cap >= MC_FILE_MAX) {
				snprintf(err, MC_ERR_LEN, "larger than %u bytes",
				    MC_FILE_MAX);
				goto fail;
			}
			cap = cap == 0 ? 65536 : cap * 2;
			if ((nb = realloc(buf, cap)) == NULL) {
				snprintf(err, MC_ERR_LEN, "out of memory");
				goto fail;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, MC_ERR_LEN, "read error");
		goto fail;
	}
	fclose(f);
	*len = n;
	return (buf);
fail:
	fclose(f);
	free(buf);
	return (NULL);
}

int
main(int argc, char **argv)
{
	struct mc_opts	 o;
	struct mc_info	 info;
	unsigned char	*buf;
	char		 err[MC_ERR_LEN], v[32];
	size_t		 len;
	int		 i, r = 0, nfiles = 0;

	memset(&o, 0, sizeof o);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--cpu=arm64") == 0)
			o.cpu = CPU_TYPE_ARM64;
		else if (strcmp(argv[i], "--cpu=x86_64") == 0)
			o.cpu = CPU_TYPE_X86_64;
		else if (strncmp(argv[i], "--minos=", 8) == 0) {
			if (mc_version(argv[i] + 8, &o.minos) != 0) {
				fprintf(stderr, "macho-check: bad version %s\n",
				    argv[i] + 8);
				return (2);
			}
		} else if (strcmp(argv[i], "--signed") == 0)
			o.sign = 1;
		else if (strncmp(argv[i], "--dylibs=", 9) == 0)
			o.dylibs = argv[i] + 9;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: macho-check [--cpu=arm64|x86_64] "
			    "[--minos=X.Y] [--signed] [--dylibs=A,B] FILE...\n");
			return (2);
		} else
			nfiles++;
	}
	if (nfiles == 0) {
		fprintf(stderr, "macho-check: no files\n");
		return (2);
	}
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		if ((buf = mc_read(argv[i], &len, err)) == NULL) {
			printf("%s: FAILED: %s\n", argv[i], err);
			r = 1;
			continue;
		}
		if (mc_check(buf, len, &o, &info, err) != 0) {
			printf("%s: FAILED: %s\n", argv[i], err);
			r = 1;
		} else {
			mc_version_str(info.minos, v, sizeof v);
			printf("%s: ok: Mach-O %s executable, minos %s, %u "
			    "dylib%s (%s)%s%s\n", argv[i], info.cpu == CPU_TYPE_ARM64 ?
			    "arm64" : info.cpu == CPU_TYPE_X86_64 ? "x86_64" :
			    "other", info.minos != 0 ? v : "none", info.ndylibs,
			    info.ndylibs == 1 ? "" : "s", info.dylibs,
			    !info.signed_ok ? "" :
			    info.adhoc ? ", ad-hoc signed" : ", signed",
			    info.signed_ok ? " (all page hashes match)" : "");
		}
		free(buf);
	}
	return (r);
}
