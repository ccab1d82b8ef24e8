/*
 * How to reach an SSH host beyond its address, port, user and identity:
 * what ssh_config adds, and the jump hosts on the way. Only SSH hosts have
 * one (struct host's route); the inventory and ssh_config fill it.
 */
#ifndef COORDINATOR_HOST_ROUTE_H
#define COORDINATOR_HOST_ROUTE_H

#include <stddef.h>

#define HOST_HOPS_MAX	4	/* jump hosts on the way to one host */
#define HOST_IDS_MAX	8	/* identity files from ssh_config */
#define HOST_KH_MAX	4	/* known_hosts files of one ssh_config list */
#define HOST_PATH_LEN	512

/*
 * What ssh_config adds to reach a host beyond address, port, user and
 * identity: all empty for an inventory host that does not use it.
 */
struct host_reach {
	char	 ids[HOST_IDS_MAX][HOST_PATH_LEN];	/* tried if readable */
	size_t	 nids;
	char	 known_hosts[HOST_KH_MAX][HOST_PATH_LEN];	/* none: the
							   default */
	size_t	 nkh;
	char	 global_kh[HOST_KH_MAX][HOST_PATH_LEN];	/* GlobalKnown-
							   HostsFile */
	size_t	 nglobal;
	int	 global_set;		/* 0: the default global files */
	char	 hostkey_alias[256];	/* known_hosts name, "" none */
	int	 timeout_ms;		/* ConnectTimeout, 0 the default */
	int	 identities_only;	/* IdentitiesOnly: ssh-agent keys only
					   if one of ids (or identity) */
};

/* A jump host on the way to a host (ProxyJump, or the inventory's jump). */
struct host_hop {
	char		 name[64];	/* as named, for messages */
	char		 address[256];
	int		 port;
	char		 user[64];
	char		 identity[512];	/* "": none required */
	struct host_reach reach;
};

/* An SSH host's way there: its ssh_config settings and its jump hosts. */
struct host_route {
	struct host_reach reach;		/* from ssh_config */
	struct host_hop	 hops[HOST_HOPS_MAX];	/* jump hosts, first first */
	size_t		 nhops;
};

#endif
