#include "tests/gpu/gpu_coll_ref.hpp"

#include "tests/coll/coll_check.hpp"

namespace gpu_coll_ref {

namespace gc = gshmem::coll;

namespace {

coll_test::Case to_coll_test(const Case& c) {
  coll_test::Case t{c.coll, c.dtype, c.op, c.count};
  t.root = c.root;
  t.in_place = c.in_place;
  t.symmetric = c.symmetric;
  t.salt = c.salt;
  return t;
}

template <class T>
size_t check_typed(const Case& c, int me, int n, const void* dst, const std::string& note) {
  const T* out = static_cast<const T*>(dst);
  size_t wrong = 0;
  coll_test::for_each_expected<T>(to_coll_test(c), n, me, [&](size_t i, const T& want) {
    if (coll_test::same_bits(out[i], want) || ++wrong > 3) return;
    ADD_FAILURE() << describe(c) << ": element " << i << " is " << coll_test::as_ld_any(out[i])
                  << ", expected " << coll_test::as_ld_any(want) << " [" << note << "]";
  });
  return wrong;
}

}  // namespace

bool reduces(Coll c) {
  return coll_test::reduces(c);
}

const char* coll_name(Coll c) {
  return gc::coll_name(c);
}

const char* algo_name(Algo a) {
  return gc::algo_name(a);
}

std::string describe(const Case& c) {
  return coll_test::describe(to_coll_test(c), GSHMEM_TEAM_WORLD);
}

void make_input(const Case& c, int pe, size_t elems, void* out) {
  gc::visit_type(c.dtype, [&](auto v) {
    using T = decltype(v);
    T* o = static_cast<T*>(out);
    for (size_t k = 0; k < elems; ++k) o[k] = coll_test::make_value<T>(c.salt, pe, k, c.op);
  });
}

size_t check_output(const Case& c, int me, int n, const void* dst, const std::string& note) {
  return gc::visit_type(c.dtype,
                        [&](auto v) { return check_typed<decltype(v)>(c, me, n, dst, note); });
}

void force(Algo algo, int nch, uint64_t chunk) {
  gc::Overrides o;
  o.proto = gc::overrides().proto;  // GSHMEM_PROTO stays in force
  for (Algo& a : o.algo) a = algo;
  o.nch = nch;
  o.chunk = chunk;
  gc::set_overrides(&o);
}

void unforce() {
  gc::set_overrides(nullptr);
}

std::vector<Algo> algorithms_for(Coll coll) {
  return coll_test::algorithms_for(coll);
}

}  // namespace gpu_coll_ref
