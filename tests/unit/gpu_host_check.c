/* The GPU layer's behaviour where there is no GPU, in C (so gshmem.h's GPU declarations are
 * checked as C too). One mode per process, because the environment registry is read once:
 *   probe       gshmemx_gpu_available gives a reason exactly when it says no GPU is usable
 *   device-heap GSHMEM_HEAP=device without a GPU fails init with a message naming GSHMEM_HEAP
 *               and the probe's reason (ctest matches it)
 *   on-stream   with a host heap every on-stream call refuses with INVALID_ARGUMENT
 * With a usable GPU the last two print SKIPPED: the GPU tests (tests/gpu) cover that case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gshmem/gshmem.h"

static int failures = 0;

static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "FAILED: %s\n", what);
    ++failures;
  }
}

static int probe(void) {
  char why[256];
  memset(why, 'x', sizeof why);
  int ok = gshmemx_gpu_available(why, sizeof why);
  expect(ok == 0 || ok == 1, "gshmemx_gpu_available returns 0 or 1");
  expect(memchr(why, '\0', sizeof why) != NULL, "the reason is NUL-terminated");
  expect(ok ? why[0] == '\0' : why[0] != '\0', "a reason exactly when no GPU is usable");
  printf("gshmemx_gpu_available: %d (%s)\n", ok, ok ? "usable" : why);
  char tiny[4];
  expect(gshmemx_gpu_available(tiny, sizeof tiny) == ok, "same answer with a short buffer");
  expect(strlen(tiny) < sizeof tiny, "a short buffer is truncated, terminated");
  expect(gshmemx_gpu_available(NULL, 0) == ok, "why may be NULL");
  expect(gshmemx_heap_kind() == GSHMEMX_HEAP_NONE, "no heap kind before init");
  expect(gshmemx_cuda_device() == -1, "no device before init");
  return failures ? 1 : 0;
}

static int device_heap(void) {
  if (gshmemx_gpu_available(NULL, 0)) {
    printf("SKIPPED: a GPU is usable here, so GSHMEM_HEAP=device succeeds\n");
    return 0;
  }
  setenv("GSHMEM_HEAP", "device", 1);
  int rc = gshmemx_init_attr(GSHMEMX_INIT_DEFAULT, NULL);
  expect(rc == GSHMEM_ERROR_INVALID_ARGUMENT, "init fails with INVALID_ARGUMENT");
  expect(!gshmem_initialized(), "and is not initialised");
  fflush(stderr);
  return failures ? 1 : 0;
}

static int on_stream(void) {
  if (gshmemx_gpu_available(NULL, 0)) {
    printf("SKIPPED: a GPU is usable here; the GPU tests cover on-stream calls\n");
    return 0;
  }
  setenv("GSHMEM_HEAP", "host", 1);
  gshmem_init();
  expect(gshmemx_heap_kind() == GSHMEMX_HEAP_HOST, "heap kind is host");
  expect(gshmemx_cuda_device() == -1, "no CUDA device for a host heap");
  uint64_t* sig = (uint64_t*)gshmem_calloc(2, sizeof(uint64_t));
  char* buf = (char*)gshmem_malloc(64);
  char local[64] = {0};
  int bad = GSHMEM_ERROR_INVALID_ARGUMENT;
  expect(gshmem_putmem_on_stream(buf, local, 8, 0, NULL) == bad, "putmem_on_stream refuses");
  expect(gshmem_getmem_on_stream(local, buf, 8, 0, NULL) == bad, "getmem_on_stream refuses");
  expect(gshmem_putmem_signal_on_stream(buf, local, 8, sig, 1, GSHMEM_SIGNAL_SET, 0, NULL) == bad,
         "putmem_signal_on_stream refuses");
  expect(gshmem_signal_op_on_stream(sig, 1, GSHMEM_SIGNAL_ADD, 0, NULL) == bad,
         "signal_op_on_stream refuses");
  expect(gshmem_signal_wait_until_on_stream(sig, GSHMEM_CMP_EQ, 0, NULL) == bad,
         "signal_wait_until_on_stream refuses");
  expect(gshmem_quiet_on_stream(NULL) == bad, "quiet_on_stream refuses");
  expect(gshmem_barrier_all_on_stream(NULL) == bad, "barrier_all_on_stream refuses");
  expect(gshmem_sync_all_on_stream(NULL) == bad, "sync_all_on_stream refuses");
  /* Nothing was enqueued or written: the host heap is as it was. */
  expect(gshmem_signal_fetch(sig) == 0, "the signal is untouched");
  gshmem_free(buf);
  gshmem_free(sig);
  gshmem_finalize();
  expect(gshmemx_heap_kind() == GSHMEMX_HEAP_NONE, "no heap kind after finalize");
  return failures ? 1 : 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int rc = strcmp(mode, "probe") == 0         ? probe()
           : strcmp(mode, "device-heap") == 0 ? device_heap()
           : strcmp(mode, "on-stream") == 0   ? on_stream()
                                              : 2;
  if (rc == 0) printf("PASSED: %s\n", mode);
  return rc;
}
