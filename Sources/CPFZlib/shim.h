#ifndef CPFZLIB_SHIM_H
#define CPFZLIB_SHIM_H
#include <zlib.h>

// deflateInit2 and inflateInit2 are function-like macros, which Swift cannot call.
static inline int CPFZlib_deflateInit2(z_streamp strm, int level, int method,
                                       int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}

static inline int CPFZlib_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
