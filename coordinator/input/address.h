/* Host addresses as the inventory and ssh_config may give them. */
#ifndef COORDINATOR_ADDRESS_H
#define COORDINATOR_ADDRESS_H

/*
 * Returns 1 if s is an IPv4 or IPv6 literal or a host name of letters,
 * digits, '-', '_' and '.' labels: never an option, never a shell word.
 */
int	address_ok(const char *s);

#endif
