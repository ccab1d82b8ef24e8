/*
 * A new run: the suite with the flags on top, the seed, the shared
 * order, the run id and DIR, made private.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"
#include "coordinator/run/plan.h"
#include "coordinator/run/run-int.h"
#include "coordinator/run/run.h"
#include "coordinator/store/dataset.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

/* Creates dir (mode) and its parents (0755). Returns 0 or -1 (errno). */
static int
run_new_mkdirs(const char *dir, mode_t mode)
{
	char	tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof tmp, "%s", dir);
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) == -1 && errno != EEXIST)
			return (-1);
		*p = '/';
	}
	if (mkdir(tmp, mode) == -1 && errno != EEXIST)
		return (-1);
	return (0);
}

/*
 * Creates DIR and DIR/logs, 0700 when new: the record and the logs carry
 * the suite's settings and environment. Returns 0 or -1 (cause).
 */
int
run_new_dirs(const char *dir, char **cause)
{
	struct stat	st;
	char		logs[PATH_MAX + 8];

	snprintf(logs, sizeof logs, "%s/logs", dir);
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		xasprintf(cause, "%s exists and is not a directory", dir);
		return (-1);
	}
	if (run_new_mkdirs(dir, 0700) == -1) {
		xasprintf(cause, "cannot create the directory %s: %s", dir,
		    strerror(errno));
		return (-1);
	}
	if (run_new_mkdirs(logs, 0700) == -1) {
		xasprintf(cause, "cannot create %s: %s", logs, strerror(errno));
		return (-1);
	}
	/* A link planted at DIR/logs would put the logs anywhere. */
	if (lstat(logs, &st) == -1 || !S_ISDIR(st.st_mode)) {
		xasprintf(cause, "%s: not a directory", logs);
		return (-1);
	}
	return (0);
}

/* Makes the run id: UTC time and 4 random hex digits. */
static int
run_new_id(char *buf, size_t len)
{
	unsigned char	rnd[2];
	time_t		now = time(NULL);
	struct tm	tm;
	char		ts[32];

	if (RAND_bytes(rnd, sizeof rnd) != 1)
		return (-1);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s-%02x%02x", ts, rnd[0], rnd[1]);
	return (0);
}

/* A new run: the suite, the seed, the order, the run id and DIR. */
int
run_new_prepare(struct run *run, char **cause)
{
	const struct run_opts	*opts = run->opts;
	char			 probe[PATH_MAX + 32];

	if (suite_load_text(opts->suite, opts->suite_text, &run->suite,
	    cause) != 0)
		return (-1);
	if (opts->has_warmup)
		run->suite->warmup = opts->warmup;
	if (opts->rounds > 0) {
		run->suite->rounds = opts->rounds;
		run->suite->auto_rounds = 0;
	}
	if (opts->auto_rounds) {
		run->suite->auto_rounds = 1;
		if (run->suite->min_rounds > run->suite->max_rounds) {
			xasprintf(cause, "--rounds=auto: %s: min_rounds %u is "
			    "above max_rounds %u", opts->suite,
			    run->suite->min_rounds, run->suite->max_rounds);
			return (-1);
		}
		run->suite->rounds = run->suite->max_rounds;
	}
	if (opts->budget_s > 0) {
		if (!run->suite->auto_rounds) {
			xasprintf(cause, "--budget=%us needs rounds = auto "
			    "(--rounds=auto, or in the suite)", opts->budget_s);
			return (-1);
		}
		run->suite->budget_s = opts->budget_s;
	}
	if (opts->has_env_pad)
		run->suite->env_pad = opts->env_pad;
	if (opts->has_seed)
		run->suite->seed = opts->seed;
	else if (!run->suite->has_seed) {
		if (RAND_bytes((unsigned char *)&run->suite->seed,
		    sizeof run->suite->seed) != 1)
			fatalx("RAND_bytes failed");
		run->suite->seed &= (1ULL << 53) - 1;	/* exact in JSON */
	}
	if (plan_order(run->suite, run->suite->seed, &run->order,
	    &run->norder) != 0)
		fatalx("out of memory planning");
	if (run_new_id(run->run_id, sizeof run->run_id) != 0)
		fatalx("RAND_bytes failed");
	if (opts->out != NULL)
		snprintf(run->dir, sizeof run->dir, "%s", opts->out);
	else
		snprintf(run->dir, sizeof run->dir, "reports/%s", run->run_id);
	snprintf(probe, sizeof probe, "%s/%s", run->dir, RECORD_FILE);
	if (access(probe, F_OK) == 0) {
		xasprintf(cause, "%s already holds a run; choose another --out "
		    "(or orch run --resume %s)", run->dir, run->dir);
		return (-1);
	}
	if (run_new_dirs(run->dir, cause) != 0) {
		/* Name the option and the path as given. */
		if (opts->out != NULL) {
			char	*c = *cause;

			xasprintf(cause, "--out=%s: %s", opts->out, c);
			free(c);
		}
		return (-1);
	}
	/* A one-line run's suite: a file in DIR, for the record and resume. */
	if (opts->suite_text != NULL && oneline_save(run->dir, run->suite,
	    cause) != 0) {
		snprintf(probe, sizeof probe, "%s/logs", run->dir);
		rmdir(probe);	/* nothing ran: leave nothing behind */
		rmdir(run->dir);
		return (-1);
	}
	return (0);
}
