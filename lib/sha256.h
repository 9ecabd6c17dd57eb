/* SHA-256 digests as hex (libcrypto): image and config identities. */
#ifndef KB_SHA256_H
#define KB_SHA256_H

#include <stdbool.h>
#include <stddef.h>

/* The SHA-256 of data as 64 hex digits and a NUL; false when libcrypto fails. */
bool kb_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
