/* orch deploy: the agent onto a host, prebuilt or built there. */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <time.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coordinator/hosts/deploy.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/ssh.h"
#include "coordinator/input/defaults.h"
#include "coordinator/input/tty.h"
#include "proto/log.h"
#include "proto/proto.h"
#include "proto/util.h"
#include "proto/version.h"

#define DEPLOY_CMD_TIMEOUT	60000	/* ms for small commands */
#define DEPLOY_BUILD_TIMEOUT	600000	/* ms for make on the host */
#define DEPLOY_PACK_TIMEOUT	60000	/* ms for tar packing the sources */

extern char **environ;

/*
 * Builds the agent from src.tar.gz in the workdir, "$1": a fixed script
 * run as "sh -c SCRIPT orch-deploy WORKDIR", so the workdir is data. It
 * removes only a src directory it made itself (its marker inside says
 * so): any other src there is refused, never deleted.
 */
static const char deploy_build_script[] =
	"cd \"$1\" || exit 96; if test -e src || test -L src; then "
	"test -d src && ! test -L src && test -f src/.orch-deploy-src || "
	"{ echo \"$1/src is not a directory orch deploy made: move it "
	"away\" >&2; exit 96; }; rm -rf src || exit 96; fi; "
	"mkdir src && : >src/.orch-deploy-src && "
	"tar -xzf src.tar.gz -C src && "
	"command -v make >/dev/null 2>&1 || { echo 'missing: make' >&2; "
	"exit 97; }; command -v cc >/dev/null 2>&1 || { echo 'missing: "
	"a C compiler (cc)' >&2; exit 97; }; "
	"make -C src agent 2>&1 >/dev/null | tail -20 >&2; "
	"test -x src/bin/orch-agent || exit 98; mkdir -p bin && "
	"cp src/bin/orch-agent bin/orch-agent.new && "
	"mv bin/orch-agent.new bin/orch-agent && "
	"{ ! test -x src/bin/orch-null || { cp src/bin/orch-null "
	"bin/orch-null.new && mv bin/orch-null.new bin/orch-null; }; }";

/*
 * Makes the workdir, "$1", 0700 when missing and checks it before anything
 * in it runs: not the home directory itself, no symbolic link on its path
 * below the home directory, and it, its bin and bin/orch-agent owned by
 * the login user and not writable by group or others. A fixed script run
 * as "sh -c SCRIPT orch-workdir WORKDIR" (the workdir one quoted word);
 * it says what is wrong on stderr and exits non-zero.
 */
static const char deploy_workdir_script[] =
	"set -f; umask 077; w=$1; h=${HOME%/}; "
	"case $w in /*) ;; *) w=$h/$w;; esac; "
	"while :; do case $w in ?*/) w=${w%/};; *) break;; esac; done; "
	"if [ \"$w\" = \"$h\" ]; then echo \"$w is the home directory "
	"itself: give orch a directory of its own (e.g. ~/.orch)\" >&2; "
	"exit 90; fi; "
	"case $w in \"$h\"/*) p=$h; IFS=/; for c in ${w#\"$h\"/}; do "
	"[ -n \"$c\" ] || continue; p=$p/$c; if [ -L \"$p\" ]; then "
	"echo \"$p is a symbolic link (none may be on the path below the "
	"home directory)\" >&2; exit 91; fi; done; unset IFS;; esac; "
	"[ -d \"$w\" ] || mkdir -p \"$w\" || exit 92; u=$(id -u); "
	"for f in \"$w\" \"$w/bin\" \"$w/bin/orch-agent\"; do "
	"[ -e \"$f\" ] || [ -L \"$f\" ] || continue; "
	"set -- $(ls -ldn \"$f\"); "
	"case $1 in l*) echo \"$f is a symbolic link\" >&2; exit 91;; esac; "
	"[ \"$3\" = \"$u\" ] || { echo \"$f is owned by uid $3, not by the "
	"login user (uid $u)\" >&2; exit 93; }; "
	"case $1 in ?????w*|????????w*) echo \"$f may be written by group "
	"or others (mode $1)\" >&2; exit 94;; esac; done";

static char	deploy_root[PATH_MAX] = ".";
static char	deploy_prebuilt[PATH_MAX] = "bin/orch-agent";
static char	deploy_libexec[PATH_MAX] = "";

void
deploy_set_root(const char *root)
{
	snprintf(deploy_root, sizeof deploy_root, "%s", root);
}

void
deploy_set_libexec(const char *dir)
{
	snprintf(deploy_libexec, sizeof deploy_libexec, "%s", dir);
}

void
deploy_set_agent(const char *path)
{
	snprintf(deploy_prebuilt, sizeof deploy_prebuilt, "%s", path);
}

int
deploy_workdir(const struct host *h, char *out, size_t len)
{
	const char	*wd = h->workdir[0] != '\0' ? h->workdir :
	    DEFAULT_WORKDIR;

	if (snprintf(out, len, "%s", wd) >= (int)len)
		return (-1);
	return (0);
}

int
deploy_workdir_check(struct ssh *s, const struct host *h, char *err,
    size_t errlen)
{
	char	 wd[PATH_MAX], out[1024], errb[2048];
	char	*argv[] = { (char *)(uintptr_t)"sh", (char *)(uintptr_t)"-c",
		    (char *)(uintptr_t)deploy_workdir_script,
		    (char *)(uintptr_t)"orch-workdir", wd, NULL };
	int	 rc;

	if (deploy_workdir(h, wd, sizeof wd) != 0) {
		snprintf(err, errlen, "%s: workdir too long", h->name);
		return (-1);
	}
	rc = ssh_run(s, argv, NULL, out, sizeof out, errb, sizeof errb,
	    DEPLOY_CMD_TIMEOUT);
	if (rc == 0)
		return (0);
	errb[strcspn(errb, "\n")] = '\0';
	/* The host's words: anyone's bytes, shown on a terminal. */
	tty_clean(errb, 0);
	snprintf(err, errlen, "%s: workdir %s refused: %s", h->name, wd,
	    rc == -2 ? "no answer within 60 s" : errb[0] != '\0' ? errb :
	    "its check failed");
	return (-1);
}

/*
 * Packs the agent's sources into dir/src.tar.gz: tar spawned with an argv
 * (no shell), waited for at most DEPLOY_PACK_TIMEOUT. dir is a private
 * directory of this deploy (mkdtemp), so no other process or thread can
 * name, replace or read the file. Returns 0, or -1 with words in err.
 */
static int
deploy_pack(const char *dir, char *tarball, size_t len, char *err,
    size_t errlen)
{
	posix_spawn_file_actions_t	 fa;
	struct pollfd			 pfd;
	char				 msg[512], buf[256];
	char				*argv[] = {
		(char *)(uintptr_t)"tar", (char *)(uintptr_t)"-czf", tarball,
		(char *)(uintptr_t)"-C", deploy_root,
		(char *)(uintptr_t)"Makefile", (char *)(uintptr_t)"proto",
		(char *)(uintptr_t)"agent", (char *)(uintptr_t)"tests/deps.sh",
		NULL
	};
	int64_t				 deadline;
	size_t				 got = 0, k;
	ssize_t				 n;
	pid_t				 pid, w = 0;
	int				 p[2], st = 0, e, left;

	if (snprintf(tarball, len, "%s/src.tar.gz", dir) >= (int)len) {
		snprintf(err, errlen, "temporary path too long: %s", dir);
		return (-1);
	}
	if (pipe(p) == -1) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return (-1);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	posix_spawn_file_actions_addclose(&fa, p[1]);
	e = posix_spawnp(&pid, "tar", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e != 0) {
		close(p[0]);
		snprintf(err, errlen, "cannot run tar: %s", strerror(e));
		return (-1);
	}
	/* tar's stderr until it closes it, then its exit; both bounded. */
	deadline = util_now_ms() + DEPLOY_PACK_TIMEOUT;
	pfd.fd = p[0];
	pfd.events = POLLIN;
	msg[0] = '\0';
	while ((left = (int)(deadline - util_now_ms())) > 0 &&
	    poll(&pfd, 1, left) == 1) {
		if ((n = read(p[0], buf, sizeof buf)) <= 0)
			break;
		k = (size_t)n < sizeof msg - 1 - got ? (size_t)n :
		    sizeof msg - 1 - got;
		memcpy(msg + got, buf, k);
		got += k;
		msg[got] = '\0';
	}
	close(p[0]);
	while ((w = waitpid(pid, &st, WNOHANG)) == 0 &&
	    util_now_ms() < deadline)
		poll(NULL, 0, 10);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		snprintf(err, errlen, "tar did not finish packing the agent's "
		    "sources from %s within %d s", deploy_root,
		    DEPLOY_PACK_TIMEOUT / 1000);
		return (-1);
	}
	if (w == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		msg[strcspn(msg, "\n")] = '\0';
		snprintf(err, errlen, "cannot pack the agent's sources from "
		    "%s%s%s", deploy_root, msg[0] ? ": " : "", msg);
		return (-1);
	}
	return (0);
}

int
deploy_prebuilt_path(const char *os, const char *arch, char *path, size_t len)
{
	struct utsname	 u;
	struct stat	 st;
	char		 local_arch[64];
	const char	*p;

	/* Names from the host's uname: never a path of their own. */
	for (p = os; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789_", *p) == NULL)
			goto none;
	for (p = arch; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789_", *p) == NULL)
			goto none;
	if (*os == '\0' || *arch == '\0')
		goto none;
	/*
	 * Placed by hand, then cross-built (make darwin: bin/darwin-aarch64).
	 */
	snprintf(path, len, "%s/bin/agents/%s-%s/orch-agent", deploy_root, os,
	    arch);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return (0);
	snprintf(path, len, "%s/bin/%s-%s/orch-agent", deploy_root, os, arch);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return (0);
	/* Installed beside an installed orch (make install). */
	if (deploy_libexec[0] != '\0') {
		snprintf(path, len, "%s/%s-%s/orch-agent", deploy_libexec, os,
		    arch);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return (0);
	}
	/* This machine's own agent, when the host is of its kind. */
	if (uname(&u) != 0)
		goto none;
	snprintf(local_arch, sizeof local_arch, "%s", util_arch(u.machine));
	snprintf(path, len, "%s", deploy_prebuilt);
	if (strcmp(arch, local_arch) == 0 && strcmp(os,
	    strcmp(u.sysname, "Darwin") == 0 ? "darwin" : "linux") == 0 &&
	    stat(path, &st) == 0)
		return (0);
none:
	if (len > 0)
		path[0] = '\0';
	return (-1);
}

/* Says which packages give a host a compiler and the agent's libraries. */
static void
deploy_hint(const char *os, char *buf, size_t len)
{
	if (strcmp(os, "darwin") == 0)
		snprintf(buf, len, "install them with: xcode-select --install; "
		    "brew install pkg-config nanomsg msgpack openssl");
	else
		snprintf(buf, len, "install them with: apt-get install "
		    "build-essential pkg-config libnanomsg-dev libmsgpack-dev "
		    "libssl-dev");
}

/* Runs `orch-agent --version` there; returns 1 when it is ours, else 0. */
static int
deploy_check(struct ssh *s, const char *wd, char *out, size_t outlen,
    char *errb, size_t errlen)
{
	char	agent[PATH_MAX + 32], want[128];
	char	*argv[] = { agent, (char *)(uintptr_t)"--version", NULL };
	int	rc;

	snprintf(agent, sizeof agent, "%s/bin/orch-agent", wd);
	rc = ssh_run(s, argv, NULL, out, outlen, errb, errlen,
	    DEPLOY_CMD_TIMEOUT);
	snprintf(want, sizeof want, "orch-agent %s protocol %d", ORCH_VERSION,
	    PROTO_VERSION);
	return (rc == 0 && strncmp(out, want, strlen(want)) == 0);
}

/*
 * Asks the host for its kind with uname: os in lower case ("linux",
 * "darwin"), arch normalized ("x86_64", "aarch64"). Returns 0, or -1 with
 * words in err.
 */
static int
deploy_host_kind(struct ssh *s, const struct host *h, char os[32],
    char arch[32], char *err, size_t errlen)
{
	char	 out[4096], errb[8192];
	char	*argv[] = { (char *)(uintptr_t)"uname",
		    (char *)(uintptr_t)"-sm", NULL };
	int	 rc;

	rc = ssh_run(s, argv, NULL, out, sizeof out, errb, sizeof errb,
	    DEPLOY_CMD_TIMEOUT);
	if (rc != 0 || sscanf(out, "%31s %31s", os, arch) != 2) {
		snprintf(err, errlen, "%s: cannot run uname on the host: %s",
		    h->name, rc == -2 ? "no answer within 60 s" :
		    errb[0] ? errb : "no output");
		return (-1);
	}
	for (char *p = os; *p != '\0'; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	if (util_arch(arch) != arch)
		snprintf(arch, 32, "%s", util_arch(arch));
	return (0);
}

/*
 * Pushes the prebuilt agent at path, and the floor program beside it when
 * there is one, into WORKDIR/bin. Returns 0 when the pushed agent runs
 * there (how says so), 1 when it does not (it is then built from source),
 * or -1 with words in err.
 */
static int
deploy_push_prebuilt(struct ssh *s, const struct host *h, const char *path,
    const char *os, const char *arch, const char *wd, char *how,
    size_t howlen, char *err, size_t errlen)
{
	struct stat	 st;
	char		 remote[PATH_MAX], nullsrc[PATH_MAX + 16];
	char		 nulldst[PATH_MAX], out[4096], errb[8192], *sl;
	uint64_t	 bytes, nb = 0;

	snprintf(remote, sizeof remote, "%s/bin/orch-agent",
	    h->workdir[0] ? h->workdir : DEFAULT_WORKDIR);
	if (ssh_put(s, path, remote, 0755, SSH_PUT_REPLACE, &bytes, err,
	    errlen) != 0)
		return (-1);
	/* The floor program travels with its agent. */
	snprintf(nullsrc, sizeof nullsrc, "%s", path);
	if ((sl = strrchr(nullsrc, '/')) != NULL)
		snprintf(sl + 1, sizeof nullsrc - (size_t)(sl + 1 - nullsrc),
		    "orch-null");
	snprintf(nulldst, sizeof nulldst, "%s/bin/orch-null",
	    h->workdir[0] ? h->workdir : DEFAULT_WORKDIR);
	if (stat(nullsrc, &st) == 0 &&
	    ssh_put(s, nullsrc, nulldst, 0755, SSH_PUT_REPLACE, &nb, err,
	    errlen) != 0)
		return (-1);
	bytes += nb;
	if (deploy_check(s, wd, out, sizeof out, errb, sizeof errb)) {
		snprintf(how, howlen, "pushed prebuilt %s-%s agent "
		    "(%llu bytes)", os, arch, (unsigned long long)bytes);
		return (0);
	}
	log_info("%s: the prebuilt agent does not run there (%.200s): "
	    "building from source", h->name, errb);
	return (1);
}

/*
 * Packs the agent's sources in a private temporary directory and pushes
 * them to WORKDIR/src.tar.gz. Returns 0, or -1 with words in err.
 */
static int
deploy_push_sources(struct ssh *s, const struct host *h, char *err,
    size_t errlen)
{
	char		 tmpdir[PATH_MAX], tarball[PATH_MAX], remote[PATH_MAX];
	const char	*tmp;
	uint64_t	 bytes;
	int		 rc;

	tmp = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/orch-deploy.XXXXXX",
	    tmp != NULL && *tmp == '/' ? tmp : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		snprintf(err, errlen, "cannot make a private directory %s: %s",
		    tmpdir, strerror(errno));
		return (-1);
	}
	rc = deploy_pack(tmpdir, tarball, sizeof tarball, err, errlen);
	if (rc == 0) {
		snprintf(remote, sizeof remote, "%s/src.tar.gz",
		    h->workdir[0] ? h->workdir : DEFAULT_WORKDIR);
		rc = ssh_put(s, tarball, remote, 0600, SSH_PUT_REPLACE, &bytes,
		    err, errlen);
	}
	unlink(tarball);
	rmdir(tmpdir);
	return (rc != 0 ? -1 : 0);
}

/*
 * Builds the agent from the pushed sources on the host (the M2's path)
 * and checks that it runs. Returns 0 (how says so), or -1 with words in
 * err naming what to install when a compiler or library is missing.
 */
static int
deploy_build_there(struct ssh *s, const struct host *h, const char *os,
    const char *arch, char *wd, char *how, size_t howlen, char *err,
    size_t errlen)
{
	char	 out[4096], errb[8192], hint[256];
	char	*argv[] = { (char *)(uintptr_t)"sh", (char *)(uintptr_t)"-c",
		    (char *)(uintptr_t)deploy_build_script,
		    (char *)(uintptr_t)"orch-deploy", wd, NULL };
	int	 rc;

	if (deploy_push_sources(s, h, err, errlen) != 0)
		return (-1);
	rc = ssh_run(s, argv, NULL, out, sizeof out, errb, sizeof errb,
	    DEPLOY_BUILD_TIMEOUT);
	deploy_hint(os, hint, sizeof hint);
	if (rc == 97) {
		snprintf(err, errlen, "%s: cannot build the agent there: %.*s; "
		    "%s", h->name, (int)strcspn(errb, "\n"), errb, hint);
		return (-1);
	}
	if (rc != 0) {
		snprintf(err, errlen, "%s: building the agent there failed%s: "
		    "%.300s; %s", h->name, strstr(errb, "not found") != NULL ||
		    strstr(errb, "No such file") != NULL ?
		    " (a library or header is missing)" : "", errb, hint);
		return (-1);
	}
	if (!deploy_check(s, wd, out, sizeof out, errb, sizeof errb)) {
		snprintf(err, errlen, "%s: the agent built there does not run: "
		    "%.200s", h->name, errb);
		return (-1);
	}
	snprintf(how, howlen, "built from source on the host (%s-%s)", os,
	    arch);
	return (0);
}

int
deploy_agent(struct ssh *s, struct host *h, int force, char *how,
    size_t howlen, char *err, size_t errlen)
{
	char	wd[PATH_MAX], out[4096], errb[8192];
	char	os[32] = "", arch[32] = "", path[PATH_MAX];
	int	rc;

	if (deploy_workdir(h, wd, sizeof wd) != 0) {
		snprintf(err, errlen, "%s: workdir too long", h->name);
		return (-1);
	}
	/* Nothing in the workdir runs before it is checked. */
	if (deploy_workdir_check(s, h, err, errlen) != 0)
		return (-1);
	if (force <= 0 && deploy_check(s, wd, out, sizeof out, errb,
	    sizeof errb)) {
		snprintf(how, howlen, "up to date (%.*s)",
		    (int)strcspn(out, "\n"), out);
		return (0);
	}
	if (force < 0) {
		/* Only orch check refuses; orch run would install it. */
		h->agent_stale = 1;
		snprintf(err, errlen, "%s: orch run %s it by itself (orch "
		    "deploy --hosts=%s does it ahead of time)", out[0] != '\0' ?
		    "agent is outdated" : "no agent installed", out[0] != '\0' ?
		    "replaces" : "installs", h->name);
		return (-1);
	}
	if (deploy_host_kind(s, h, os, arch, err, errlen) != 0)
		return (-1);
	/* A prebuilt agent for the host's os/arch, else built there. */
	if (force != 2 && deploy_prebuilt_path(os, arch, path,
	    sizeof path) == 0) {
		rc = deploy_push_prebuilt(s, h, path, os, arch, wd, how, howlen,
		    err, errlen);
		if (rc <= 0)
			return (rc);
	}
	return (deploy_build_there(s, h, os, arch, wd, how, howlen, err,
	    errlen));
}

struct deploy_job {
	struct host	*h;
	int		 force;
	int		 ok;
	char		 how[256];
	char		 err[HOST_ERR_LEN];
};

static void *
deploy_thread(void *arg)
{
	struct deploy_job	*j = arg;

	if (j->h->ops->deploy(j->h, j->force, j->how, sizeof j->how, j->err,
	    sizeof j->err) == 0)
		j->ok = 1;
	return (NULL);
}

int
deploy_main(struct host *hosts, size_t n, int force)
{
	struct deploy_job	*jobs;
	size_t			 i;
	int			 r = 0;

	if ((jobs = calloc(n, sizeof *jobs)) == NULL) {
		log_warnx("out of memory");
		return (3);
	}
	for (i = 0; i < n; i++) {
		jobs[i].h = &hosts[i];
		jobs[i].force = force;
	}
	host_each(jobs, n, sizeof *jobs, deploy_thread);
	for (i = 0; i < n; i++) {
		if (jobs[i].ok)
			printf("%s: %s\n", hosts[i].name, jobs[i].how);
		else {
			/* It holds the host's stderr: anyone's bytes. */
			printf("%s: FAILED: %s\n", hosts[i].name,
			    tty_clean(jobs[i].err, 1));
			r = 3;
		}
	}
	free(jobs);
	return (r);
}
