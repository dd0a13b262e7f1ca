# The run-time options of the sanitizer build (-DGSHMEM_ASAN=ON): source this file before running
# ctest or a program of that build. scripts/test.sh does. Every PE inherits them from gshmemrun.
#   halt_on_error/exitcode: the first report ends the process with a status no test expects.
#   detect_leaks: LeakSanitizer at exit, with the suppressions of leaks proven to be inside
#   third-party libraries (scripts/lsan.supp names each library and why).
#   intercept_tls_get_addr=0: the runtime's own record of dynamic TLS blocks can hold a bogus
#   range (seen on kernel 6.18 with Debian 12's GCC 12 runtime: "DTLS 10 at 0x2d5-0x4000013d7"),
#   and LeakSanitizer's scan of it at exit crashes ("Tracer caught signal 11") after every test
#   passed, in each mp_rma job across virtual nodes. A known fault of the sanitizer runtime, not of
#   the program; without the record, those blocks are scanned as the heap memory they are.
_gshmem_scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:exitcode=86:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:intercept_tls_get_addr=0"
export LSAN_OPTIONS="suppressions=$_gshmem_scripts/lsan.supp:print_suppressions=0:exitcode=87"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=88"
unset _gshmem_scripts
