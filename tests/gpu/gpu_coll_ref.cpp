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
  const size_t count = c.count;
  size_t wrong = 0;
  auto check = [&](size_t i, const T& want) {
    if constexpr (gc::is_complex_v<T>) {
      // Complex products may differ in the sign of a zero with the order of evaluation.
      if (out[i].re == want.re && out[i].im == want.im) return;
    } else {
      if (std::memcmp(&out[i], &want, sizeof(T)) == 0) return;
    }
    if (++wrong <= 3) {
      ADD_FAILURE() << describe(c) << ": element " << i << " is " << coll_test::as_ld_any(out[i])
                    << ", expected " << coll_test::as_ld_any(want) << " [" << note << "]";
    }
  };
  std::vector<T> vals(static_cast<size_t>(n));
  auto reduce_at = [&](size_t k) {
    for (int p = 0; p < n; ++p) vals[size_t(p)] = coll_test::make_value<T>(c.salt, p, k, c.op);
    return coll_test::reference<T>(c.op, vals);
  };
  switch (c.coll) {
    case Coll::AllReduce:
    case Coll::Reduce:
      for (size_t i = 0; i < count; ++i) check(i, reduce_at(i));
      break;
    case Coll::ReduceScatter:
      for (size_t i = 0; i < count; ++i) check(i, reduce_at(size_t(me) * count + i));
      break;
    case Coll::AllGather:
      for (int p = 0; p < n; ++p) {
        for (size_t i = 0; i < count; ++i) {
          check(size_t(p) * count + i, coll_test::make_value<T>(c.salt, p, i, c.op));
        }
      }
      break;
    case Coll::Broadcast:
      for (size_t i = 0; i < count; ++i) {
        check(i, coll_test::make_value<T>(c.salt, c.root, i, c.op));
      }
      break;
    case Coll::AllToAll:
      for (int p = 0; p < n; ++p) {
        for (size_t i = 0; i < count; ++i) {
          check(size_t(p) * count + i,
                coll_test::make_value<T>(c.salt, p, size_t(me) * count + i, c.op));
        }
      }
      break;
  }
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
