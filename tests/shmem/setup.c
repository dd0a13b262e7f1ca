/* Setup and query through the OpenSHMEM API: init_thread and query_thread, the version and
 * name, pe_accessible and addr_accessible, shmem_ptr, and every heap routine (malloc, calloc,
 * align, realloc, malloc_with_hints, free) with the same offsets on every PE. */
#include <string.h>

#include "check.h"

#if SHMEM_MAJOR_VERSION != 1 || SHMEM_MINOR_VERSION != 5
#error "shmem.h must say OpenSHMEM 1.5"
#endif

long global_word;
static long private_copy_of_nothing;

int main(void) {
  int provided = -1;
  CHECK_EQ(shmem_init_thread(SHMEM_THREAD_SERIALIZED, &provided), 0);
  CHECK_EQ(provided, SHMEM_THREAD_SERIALIZED);
  int queried = -1;
  shmem_query_thread(&queried);
  CHECK_EQ(queried, SHMEM_THREAD_SERIALIZED);
  int me = shmem_my_pe(), npes = shmem_n_pes();
  int right = (me + 1) % npes;

  int major = 0, minor = 0;
  shmem_info_get_version(&major, &minor);
  CHECK_EQ(major, 1);
  CHECK_EQ(minor, 5);
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_name(name);
  CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);

  for (int pe = 0; pe < npes; ++pe) CHECK_EQ(shmem_pe_accessible(pe), 1);
  CHECK_EQ(shmem_pe_accessible(npes), 0);
  CHECK_EQ(shmem_pe_accessible(-1), 0);
  long local = 0;
  CHECK_EQ(shmem_addr_accessible(&global_word, right), 1);
  CHECK_EQ(shmem_addr_accessible(&private_copy_of_nothing, right), 1); /* statics too */
  CHECK_EQ(shmem_addr_accessible(&local, right), 0);                   /* the stack is not */
  CHECK(shmem_ptr(&global_word, me) == (void*)&global_word);
  CHECK(shmem_ptr(&local, right) == NULL);

  /* Heap routines: the same sequence on every PE gives the same addresses everywhere, so a
   * neighbour's copy is reachable at the local address. */
  long* a = shmem_malloc(100 * sizeof(long));
  long* z = shmem_calloc(50, sizeof(long));
  long* al = shmem_align(1 << 16, 64);
  long* h = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
  CHECK(a && z && al && h);
  CHECK_EQ((uintptr_t)al % (1 << 16), 0);
  for (int i = 0; i < 50; ++i) CHECK_EQ(z[i], 0);
  CHECK(shmem_malloc(0) == NULL);
  for (int i = 0; i < 100; ++i) a[i] = me * 1000 + i;
  shmem_long_atomic_set(h, me, right);
  shmem_barrier_all();
  a = shmem_realloc(a, 100000 * sizeof(long));
  CHECK(a != NULL);
  for (int i = 0; i < 100; ++i) CHECK_EQ(a[i], me * 1000 + i);
  CHECK_EQ(shmem_long_g(&a[99], right), right * 1000 + 99);
  CHECK_EQ(*h, (me + npes - 1) % npes);
  CHECK_EQ(shmem_addr_accessible(a, right), 1);
  if (shmem_ptr(a, right)) CHECK_EQ(((long*)shmem_ptr(a, right))[5], right * 1000 + 5);
  shmem_barrier_all();
  shmem_free(h);
  shmem_free(al);
  shmem_free(z);
  shmem_free(a);
  shmem_free(NULL);
  if (me == 0) printf("setup: %d PEs OK\n", npes);
  shmem_finalize();
  return 0;
}
