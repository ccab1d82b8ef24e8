/* Reading the commands' words: the parts every command shares. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/analysis/gate.h"
#include "coordinator/cli/args.h"
#include "coordinator/cli/usage.h"
#include "coordinator/hosts/host.h"
#include "coordinator/hosts/hosts.h"
#include "coordinator/hosts/inventory.h"
#include "coordinator/hosts/shell.h"
#include "coordinator/hosts/sshconfig.h"
#include "coordinator/report/report-export.h"
#include "coordinator/store/dataset.h"
#include "proto/log.h"
#include "proto/xmalloc.h"

void
args_init(struct usage_getopt *g, const char *command)
{
	if (usage_getopt(command, g) != 0)
		fatalx("%s: its options do not fit the getopt rows", command);
}

int
args_next(struct usage_getopt *g, int argc, char **argv)
{
	int	id;

	id = getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
	if (id == 'h')
		args_help(g->command);
	if (id == '?' || id == ':')
		usage_bad_option(g->command, argv, optind, optopt, id);
	return (id);
}

void
args_usage(void)
{
	usage_all(stderr);
	exit(2);
}

void
args_help(const char *command)
{
	usage_command(stdout, command);
	exit(0);
}

unsigned long long
args_u64(const char *opt, const char *s, unsigned long long max)
{
	unsigned long long	 v;
	char			*end;

	errno = 0;
	if (*s == '\0' || *s == '-' || *s == '+')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		goto bad;
	return (v);
bad:
	fprintf(stderr, "orch: %s: '%s' is not a number in 0..%llu\n", opt, s,
	    max);
	exit(2);
}

int
args_fail_on(const char *list, int *mask)
{
	char	*cause = NULL;

	if (gate_parse(list, mask, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (-1);
	}
	return (0);
}

int
args_label(char *arg, char **labels, size_t *n)
{
	char	*k, *v, *cause = NULL;
	size_t	 i, klen;

	if (dataset_label_parse(arg, &k, &v, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (-1);
	}
	klen = strlen(k);
	for (i = 0; i < *n; i++) {
		if (strncmp(labels[i], k, klen) == 0 &&
		    labels[i][klen] == '=') {
			fprintf(stderr, "orch: --label %s: given twice\n", k);
			free(k);
			return (-1);
		}
	}
	free(k);
	if (*n == LABELS_MAX) {
		fprintf(stderr, "orch: --label: at most %d labels\n",
		    LABELS_MAX);
		return (-1);
	}
	labels[(*n)++] = arg;
	return (0);
}

void
args_reach(int id, const char *arg, const char **list, const char **inv)
{
	if (id == OPT_HOSTS)
		*list = arg;
	else if (id == OPT_INVENTORY)
		*inv = arg;
	else if (id == OPT_SSH_CONFIG)
		sshcfg_set_file(arg);
	else if (id == OPT_ACCEPT_NEW)
		host_ssh_accept_new(1);
}

void
args_export(int id, const char *path, struct report_exports *e)
{
	if (id == OPT_EXPORT_JSON)
		e->json = path;
	else if (id == OPT_EXPORT_MD)
		e->md = path;
	else
		e->csv = path;
}

int
args_exports(const struct report_exports *e,
    const struct report_exports **out)
{
	char	*cause = NULL;

	*out = NULL;
	if (e->json == NULL && e->md == NULL && e->csv == NULL)
		return (0);
	if (report_export_check(e, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		return (-1);
	}
	*out = e;
	return (0);
}

struct host *
args_hosts(const char *inv, const char *list, size_t *n)
{
	struct host	*hosts;
	char		*cause;

	if (hosts_resolve(inv, list, &hosts, n, &cause) != 0) {
		fprintf(stderr, "orch: %s\n", cause);
		free(cause);
		exit(2);
	}
	return (hosts);
}

/*
 * Returns why the record's host name is not one host the user's inventory
 * (iv, loaded from inv) or ssh_config names by that very name, or NULL
 * when it is (free it).
 */
static char *
args_not_named(const char *inv, const struct inventory *iv,
    const char *name)
{
	struct host	*one = NULL;
	char		*cause = NULL, *why = NULL;
	size_t		 n = 0, i;
	int		 listed = strcmp(name, "local") == 0;

	for (i = 0; !listed && i < inventory_nhosts(iv); i++)
		listed = strcmp(inventory_host_name(iv, i), name) == 0;
	if (strcmp(name, "all") == 0)
		why = xstrdup("'all' stands for every host of the inventory");
	else if (hosts_resolve(inv, name, &one, &n, &cause) != 0)
		why = cause;
	else if (n != 1 || strcmp(one->name, name) != 0)
		why = xstrdup("it is a group of the inventory");
	else if (!listed && strcmp(one->address, name) == 0)
		why = xstrdup("it is not in the inventory, and ssh_config "
		    "gives it no HostName");
	free(one);
	return (why);
}

struct host *
args_hosts_named(const char *inv, const char *list, size_t *n,
    char **unknown)
{
	const struct inventory	*iv;
	struct host		*hosts = NULL;
	const char		*path;
	char			*copy, *name, *save = NULL, *why, *known, *u;
	int			 required;

	*n = 0;
	*unknown = NULL;
	path = inventory_path(inv, &required);
	if (inventory_get(path, required, &iv, &why) != 0) {
		fprintf(stderr, "orch: %s\n", why);
		exit(2);
	}
	copy = xstrdup(list);
	known = xcalloc(1, strlen(list) + 1);
	for (name = strtok_r(copy, ",", &save); name != NULL;
	    name = strtok_r(NULL, ",", &save)) {
		if ((why = args_not_named(inv, iv, name)) == NULL) {
			if (known[0] != '\0')
				strcat(known, ",");
			strcat(known, name);
			continue;
		}
		u = *unknown;
		xasprintf(unknown, "%s%shost '%s' of the record is unknown, "
		    "not contacted: %s", u != NULL ? u : "", u != NULL ?
		    "; " : "", name, why);
		free(u);
		free(why);
	}
	if (known[0] != '\0')
		hosts = args_hosts(inv, known, n);
	free(known);
	free(copy);
	return (hosts);
}

/* The --inventory args_deploy was given, for deploy's Slurm hosts. */
static const char	*args_deploy_inv;

const char *
args_deploy_inventory(void)
{
	return (args_deploy_inv);
}

struct host *
args_deploy(int argc, char **argv, size_t *n, int *force)
{
	struct usage_getopt	 g;
	const char		*list = NULL, *inv = NULL;
	int			 id;

	*force = 0;
	args_init(&g, "deploy");
	while ((id = args_next(&g, argc, argv)) != -1) {
		switch (id) {
		case OPT_FORCE:
			*force = *force > 1 ? *force : 1;
			break;
		case OPT_FROM_SOURCE:
			*force = 2;
			break;
		case 'v':
			log_init("orch", LOG_DEBUG);
			break;
		default:
			args_reach(id, optarg, &list, &inv);
		}
	}
	if (optind != argc)
		usage_error("deploy", "deploy takes no arguments, got '%s' "
		    "(hosts go in --hosts=LIST)", argv[optind]);
	args_deploy_inv = inv;
	return (args_hosts(inv, list, n));
}

/* Appends " --OPT=PATH", PATH absolute when it exists, shell-quoted. */
static void
args_again_one(char *out, size_t len, const char *opt, const char *path)
{
	char	abs[PATH_MAX], word[PATH_MAX + 32];
	size_t	n = strlen(out);

	if (path == NULL)
		return;
	if (realpath(path, abs) == NULL)
		snprintf(abs, sizeof abs, "%s", path);
	snprintf(word, sizeof word, "--%s=%s", opt, abs);
	if (n + 1 < len) {
		out[n] = ' ';
		out[n + 1] = '\0';
		if (shell_quote(out, len, word) != 0)
			out[n] = '\0';
	}
}

void
args_again(const char *inv, const char *sshcfg, char *out, size_t len)
{
	out[0] = '\0';
	args_again_one(out, len, "inventory", inv);
	args_again_one(out, len, "ssh-config", sshcfg);
}

void
args_again_env(const struct host *hosts, size_t n, char *out, size_t len)
{
	const char	*wd = getenv("ORCH_WORKDIR");
	size_t		 i;

	out[0] = '\0';
	if (wd == NULL || *wd == '\0')
		return;
	for (i = 0; i < n && strcmp(hosts[i].name, "local") != 0; i++)
		;
	if (i == n)
		return;
	snprintf(out, len, "ORCH_WORKDIR=");
	if (shell_quote(out, len, wd) != 0 || strlen(out) + 2 > len)
		out[0] = '\0';
	else
		strcat(out, " ");
}
