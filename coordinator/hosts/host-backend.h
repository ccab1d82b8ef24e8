/*
 * The backends behind struct host_ops, for the hosts layer alone: which
 * one a host gets is chosen here (hosts.c binds them), never by a caller.
 */
#ifndef COORDINATOR_HOST_BACKEND_H
#define COORDINATOR_HOST_BACKEND_H

#include "coordinator/hosts/host.h"

/* This machine: the agent as a child process (host-local.c). */
extern const struct host_ops host_local_ops;

/* A host reached over SSH, through its jump hosts (host-ssh.c). */
extern const struct host_ops host_ssh_ops;

/*
 * Fills t, the SSH target of host h (bound to host_ssh_ops), and its
 * jump hosts in hops[HOST_HOPS_MAX]: what every SSH use of a host
 * connects with (the Slurm login host's too, slurm-login.c). t points
 * into h.
 */
struct ssh_target;
void	host_ssh_target(const struct host *h, struct ssh_target *t,
	    struct ssh_target *hops);

/* Fills h as the built-in host `local`, bound to host_local_ops. */
void	host_local_init(struct host *h);

#endif
