/* Shared by the OpenSHMEM tests (C programs built with oshcc, run with oshrun): value checks
 * that name the PE, the line and both values, and end the whole job with status 1 through
 * shmem_global_exit, so one PE's failure cannot leave the others waiting in a barrier. */
#ifndef GSHMEM_TESTS_SHMEM_CHECK_H
#define GSHMEM_TESTS_SHMEM_CHECK_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static void check_failed(const char* file, int line, const char* what, long double got,
                         long double want) {
  fprintf(stderr, "PE %d: %s:%d: CHECK(%s) failed: got %.21Lg, want %.21Lg\n", shmem_my_pe(), file,
          line, what, got, want);
  fflush(stderr);
  shmem_global_exit(1);
}

/* Integers of any width and floating values, compared exactly as long double (its 64-bit
 * mantissa holds every 64-bit integer; a float that differs in any bit fails). */
#define CHECK_EQ(got, want)                                                         \
  do {                                                                              \
    long double check_got_ = (long double)(got), check_want_ = (long double)(want); \
    if (check_got_ != check_want_)                                                  \
      check_failed(__FILE__, __LINE__, #got " == " #want, check_got_, check_want_); \
  } while (0)
#define CHECK(cond)                                             \
  do {                                                          \
    if (!(cond)) check_failed(__FILE__, __LINE__, #cond, 0, 1); \
  } while (0)

/* Values tagged with who wrote them and where, small enough for every type (char included):
 * (pe * 7 + i * 3 + salt) % 100. */
#define TAG(pe, i, salt) (((pe)*7 + (i)*3 + (salt)) % 100)

#endif /* GSHMEM_TESTS_SHMEM_CHECK_H */
