/*
 * Kernel interface numbers newer than Debian 12's linux-libc-dev 6.1
 * (values from the 6.13 uapi headers, see shared/kernel-uapi-facts.md).
 */
#ifndef KB_UAPI_COMPAT_H
#define KB_UAPI_COMPAT_H

#include <sys/mman.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
#ifndef MADV_GUARD_REMOVE
#define MADV_GUARD_REMOVE 103
#endif

#endif
