/* Wine 8.0 lacks bcryptprimitives.dll, whose ProcessPrng Rust's std (>= 1.78) imports on
 * Windows: without this shim every test binary exits with status 53 before main. Only for
 * running Windows-target unit tests under Wine (scripts/wine-test.sh), never shipped. */
#include <windows.h>
#include <ntsecapi.h>
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
