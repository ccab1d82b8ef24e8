/*
 * The files one host of a run needs, resolved for its os/arch before
 * anything runs anywhere: each variant's program, the hooks' programs
 * and the benchmarks' data files, hashed once per run; and what the
 * record says of them.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/hosts/host.h"
#include "coordinator/input/suite.h"
#include "coordinator/run/run-int.h"
#include "coordinator/store/record.h"
#include "proto/hash.h"
#include "proto/xmalloc.h"

const char *const run_files_hook_names[SUITE_NHOOKS] = {
	"prepare", "setup", "cleanup"
};

/*
 * Copies the hash of path when another host of the run has it. Returns 0
 * or -1.
 */
static int
run_files_known_sha(const struct run *run, const char *path,
    char sha[PROTO_SHA_HEX])
{
	size_t	i, j;

	for (i = 0; i < run->nrh; i++) {
		for (j = 0; j < run->rh[i].nfiles; j++) {
			if (run->rh[i].files[j].path != NULL &&
			    strcmp(run->rh[i].files[j].path, path) == 0) {
				memcpy(sha, run->rh[i].files[j].sha,
				    PROTO_SHA_HEX);
				return (0);
			}
		}
	}
	return (-1);
}

/* Adds path to rh's files (once), hashing it. Returns its index or -1. */
static long
run_files_add(struct run_host *rh, const char *path, int executable,
    char **cause)
{
	struct run_file	*f;
	size_t		 i;

	for (i = 0; i < rh->nfiles; i++) {
		if (strcmp(rh->files[i].path, path) == 0)
			return ((long)i);
	}
	rh->files = xreallocarray(rh->files, rh->nfiles + 1, sizeof *rh->files);
	f = &rh->files[rh->nfiles];
	memset(f, 0, sizeof *f);
	/* A file several hosts need is hashed once per run. */
	if (run_files_known_sha(rh->run, path, f->sha) != 0 &&
	    hash_file(path, f->sha) != 0) {
		xasprintf(cause, "%s: %s", path, strerror(errno));
		return (-1);
	}
	f->path = xstrdup(path);
	f->executable = executable;
	return ((long)rh->nfiles++);
}

/*
 * Resolves the hooks' programs that are pushed, for the host's os/arch.
 * Returns 0 or -1 (cause).
 */
static int
run_files_hooks(struct run *run, struct run_host *rh, char **cause)
{
	const struct suite	*s = run->suite;
	const struct proto_facts *f = &rh->h->facts;
	const struct suite_hook	*hk;
	struct stat		 st;
	char			 path[PATH_MAX];
	size_t			 b, k;
	long			 idx;

	rh->hook = xcalloc(s->nbenches * SUITE_NHOOKS + 1, sizeof *rh->hook);
	for (b = 0; b < s->nbenches; b++) {
		for (k = 0; k < SUITE_NHOOKS; k++) {
			hk = &s->benches[b].hooks[k];
			rh->hook[b * SUITE_NHOOKS + k] = RUN_ONHOST;
			if (hk->nargv == 0 || hk->host != NULL)
				continue;
			if (suite_expand(hk->bin, f->os, f->arch, path,
			    sizeof path) != 0 || stat(path, &st) == -1 ||
			    !S_ISREG(st.st_mode)) {
				xasprintf(cause, "%s:%d: [bench.%s] %s: no "
				    "program for host %s (%s/%s): %s", s->path,
				    hk->line, s->benches[b].name,
				    run_files_hook_names[k], rh->h->name, f->os,
				    f->arch, hk->bin);
				return (-1);
			}
			if ((idx = run_files_add(rh, path, 1, cause)) < 0)
				return (-1);
			rh->hook[b * SUITE_NHOOKS + k] = (size_t)idx;
		}
	}
	return (0);
}

/*
 * Resolves a host's files for its os/arch: every variant's program and
 * every benchmark's data file must exist. Returns 0 or -1 (cause).
 */
int
run_files_resolve(struct run *run, struct run_host *rh, char **cause)
{
	const struct suite	*s = run->suite;
	const struct proto_facts *f = &rh->h->facts;
	struct stat		 st;
	char			 path[PATH_MAX];
	size_t			 v, b, k, nd = 0;
	long			 idx;

	rh->bin = xcalloc(s->nvariants, sizeof *rh->bin);
	for (b = 0; b < s->nbenches; b++)
		nd += s->benches[b].nfiles;
	rh->data = xcalloc(nd + 1, sizeof *rh->data);
	for (v = 0; v < s->nvariants; v++) {
		const struct suite_variant *sv = &s->variants[v];

		if (sv->host != NULL) {
			rh->bin[v] = RUN_ONHOST;	/* the agent finds it */
			continue;
		}
		if (suite_expand(sv->bin, f->os, f->arch, path,
		    sizeof path) != 0) {
			xasprintf(cause, "%s:%d: [variant.%s] bin path too "
			    "long", s->path, sv->line, sv->name);
			return (-1);
		}
		if (stat(path, &st) == -1 || !S_ISREG(st.st_mode)) {
			xasprintf(cause, "%s:%d: [variant.%s] no program for "
			    "host %s (%s/%s): %s does not exist", s->path,
			    sv->line, sv->name, rh->h->name, f->os, f->arch,
			    path);
			return (-1);
		}
		if ((idx = run_files_add(rh, path, 1, cause)) < 0)
			return (-1);
		rh->bin[v] = (size_t)idx;
	}
	if (run_files_hooks(run, rh, cause) != 0)
		return (-1);
	nd = 0;
	for (b = 0; b < s->nbenches; b++) {
		for (k = 0; k < s->benches[b].nfiles; k++) {
			idx = run_files_add(rh, s->benches[b].files[k].path, 0,
			    cause);
			if (idx < 0)
				return (-1);
			rh->data[nd++] = (size_t)idx;
		}
	}
	return (0);
}

/* Records the files a host runs, saying which were pushed just now. */
void
run_files_record(struct run *run, struct run_host *rh, const int *fresh)
{
	size_t	v, i, b, k, fi;

	for (v = 0; v < run->suite->nvariants; v++) {
		if (rh->bin[v] == RUN_ONHOST)
			continue;	/* recorded as its agent found it */
		record_file(&run->rec, rh->h->name,
		    run->suite->variants[v].name, "bin",
		    rh->files[rh->bin[v]].path, rh->files[rh->bin[v]].sha,
		    fresh[rh->bin[v]]);
	}
	for (b = 0; b < run->suite->nbenches; b++) {
		for (k = 0; k < SUITE_NHOOKS; k++) {
			if ((fi = rh->hook[b * SUITE_NHOOKS + k]) == RUN_ONHOST)
				continue;
			record_file(&run->rec, rh->h->name, "",
			    run_files_hook_names[k], rh->files[fi].path,
			    rh->files[fi].sha, fresh[fi]);
		}
	}
	for (i = 0; i < rh->nfiles; i++) {
		if (!rh->files[i].executable)
			record_file(&run->rec, rh->h->name, "", "data",
			    rh->files[i].path, rh->files[i].sha, fresh[i]);
	}
}
