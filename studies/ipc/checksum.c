/* The order-sensitive checksum both peers compute over the messages, in the order they were
 * sent (client) and received (server). Each message is folded into the running value, so the
 * same messages in another order give another checksum; within a message, four lanes of
 * 64-bit multiply-rotate rounds (xxHash's round) keep it near memory speed. It detects loss,
 * reordering and corruption; it is not cryptographic. */
#include <string.h>

#include "ipc.h"

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL

static inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t round64(uint64_t acc, uint64_t w)
{
    acc += w * P2;
    return rotl(acc, 31) * P1;
}

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    return x ^ (x >> 33);
}

uint64_t ipc_checksum(uint64_t h, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint64_t a = h + P1 + P2, b = h + P2, c = h, d = h - P1, w;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        memcpy(&w, p + i, 8);      a = round64(a, w);
        memcpy(&w, p + i + 8, 8);  b = round64(b, w);
        memcpy(&w, p + i + 16, 8); c = round64(c, w);
        memcpy(&w, p + i + 24, 8); d = round64(d, w);
    }
    uint64_t acc = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + n;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        acc = rotl(acc ^ round64(0, w), 27) * P1 + P3;
    }
    for (; i < n; i++)
        acc = rotl(acc ^ (p[i] * P3), 11) * P1;
    return mix(acc ^ rotl(h, 17));
}
