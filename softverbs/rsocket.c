// SPDX-License-Identifier: MIT
/* placeholder, replaced below */
#include <poll.h>
#include "cm_internal.h"
CM_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout);
CM_EXPORT int rpoll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return poll(fds, nfds, timeout);
}
