// gshmem._C: the C API for the Python package, one thin function per call.
//
// Addresses travel as integers (a tensor's data_ptr()); gshmem/__init__.py checks every
// argument against the tensors it came from and names it in its errors. What reaches the C API
// and still fails arrives here as a gshmem::Error (the module runs the library in
// GSHMEMX_ERROR_THROW mode) or as a status code, and leaves as a Python exception with the
// library's message: ValueError for bad input, gshmem.CapacityError for a MoE overflow,
// RuntimeError otherwise. Blocking calls release the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>

#include "gshmem/collectives.h"
#include "gshmem/gshmem.h"
#include "gshmem/gshmem.hpp"
#include "gshmem/moe.h"

namespace py = pybind11;

namespace {

using Addr = uintptr_t;

template <class T>
T* at(Addr a) {
  return reinterpret_cast<T*>(a);
}

py::object g_capacity_error;

[[noreturn]] void fail(int status, const std::string& message) {
  if (status == GSHMEM_ERROR_INVALID_ARGUMENT) throw py::value_error(message);
  if (status == GSHMEM_ERROR_CAPACITY) {
    PyErr_SetString(g_capacity_error.ptr(), message.c_str());
    throw py::error_already_set();
  }
  throw std::runtime_error(message);
}

// Runs f without the GIL; a gshmem::Error or a non-zero status becomes a Python exception.
template <class F>
auto call(F&& f) {
  try {
    py::gil_scoped_release unlocked;
    return f();
  } catch (const gshmem::Error& e) {
    fail(e.status(), e.what());
  }
}

// A status from a call that reports rather than throws: the exception carries the message the
// call printed.
void check(const char* name, int status) {
  if (status != GSHMEM_SUCCESS) {
    std::string why = gshmemx_get_last_error();
    fail(status,
         why.empty() ? std::string(name) + " failed (status " + std::to_string(status) + ")" : why);
  }
}

void* stream_of(Addr s) {
  return reinterpret_cast<void*>(s);
}

// ---- DLPack: a tensor over memory gshmem owns ----------------------------------------------
// The structs of dlpack.h (v0.x ABI), which torch.utils.dlpack.from_dlpack reads.
struct DLDevice {
  int32_t device_type;  // 1 CPU, 2 CUDA
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // 1 uint
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct Held {
  DLManagedTensor managed;
  int64_t shape;
};

void delete_held(DLManagedTensor* m) {
  delete reinterpret_cast<Held*>(m);
}

// A 1-D uint8 DLPack capsule over [ptr, ptr + bytes). The memory stays gshmem's: the tensor made
// from it does not free it (gshmem.free does, collectively).
py::capsule view_bytes(Addr ptr, int64_t bytes, int device_type, int device_id) {
  auto* h = new Held{};
  h->shape = bytes;
  h->managed.dl_tensor = {
      at<void>(ptr), {device_type, device_id}, 1, {1, 8, 1}, &h->shape, nullptr, 0};
  h->managed.manager_ctx = h;
  h->managed.deleter = delete_held;
  return py::capsule(&h->managed, "dltensor", [](PyObject* cap) {
    // A capsule torch consumed is renamed "used_dltensor"; one never consumed is freed here.
    if (PyCapsule_IsValid(cap, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
      if (m && m->deleter) m->deleter(m);
    }
  });
}

// ---- MoE ------------------------------------------------------------------------------------

py::dict moe_info(Addr handle) {
  gshmem_moe_info_t info{};
  check("gshmem_moe_get_info", gshmem_moe_get_info(at<gshmem_moe_a2a>(handle), &info));
  py::dict d;
  d["num_local_experts"] = info.num_local_experts;
  d["expert_capacity"] = info.expert_capacity;
  d["landing_capacity"] = info.landing_capacity;
  d["symmetric_bytes"] = info.symmetric_bytes;
  d["private_bytes"] = info.private_bytes;
  return d;
}

py::dict moe_overflow(Addr handle) {
  gshmem_moe_overflow_t o{};
  check("gshmem_moe_last_overflow", gshmem_moe_last_overflow(at<gshmem_moe_a2a>(handle), &o));
  py::dict d;
  d["kind"] = o.kind == GSHMEM_MOE_OVERFLOW_EXPERT    ? "expert"
              : o.kind == GSHMEM_MOE_OVERFLOW_LANDING ? "landing"
                                                      : "none";
  d["expert"] = o.expert;
  d["dest"] = o.dest;
  d["source"] = o.source;
  d["count"] = o.count;
  d["capacity"] = o.capacity;
  d["min_capacity_factor"] = o.min_capacity_factor;
  return d;
}

// dispatch_recv's batch: the buffers the handle owns and the geometry.
py::dict moe_batch(const gshmem_moe_expert_batch_t& b) {
  py::dict d;
  d["num_local_experts"] = b.num_local_experts;
  d["expert_capacity"] = b.expert_capacity;
  d["counts"] = reinterpret_cast<Addr>(b.counts);
  d["x"] = reinterpret_cast<Addr>(b.x);
  d["scales"] = reinterpret_cast<Addr>(b.scales);
  d["scales_per_token"] = b.scales_per_token;
  d["token_bytes"] = b.token_bytes;
  return d;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "gshmem's C API for the gshmem package (use gshmem, not this module)";
  g_capacity_error = py::reinterpret_borrow<py::object>(
      PyErr_NewException("gshmem.CapacityError", PyExc_RuntimeError, nullptr));
  m.attr("CapacityError") = g_capacity_error;

  // ---- Set-up ----
  m.def("init", [] {
    gshmemx_set_error_mode(GSHMEMX_ERROR_THROW);
    call([] { gshmem_init(); });
  });
  m.def("finalize", [] { call([] { gshmem_finalize(); }); });
  m.def("initialized", [] { return gshmem_initialized() != 0; });
  m.def("my_pe", [] { return gshmem_my_pe(); });
  m.def("n_pes", [] { return gshmem_n_pes(); });
  m.def("heap_kind", [] { return gshmemx_heap_kind(); });
  m.def("cuda_device", [] { return gshmemx_cuda_device(); });
  m.def("version", [] {
    int major = 0, minor = 0;
    gshmem_info_get_version(&major, &minor);
    return py::make_tuple(major, minor);
  });
  m.def("global_exit", [](int status) { gshmem_global_exit(status); });

  // ---- Symmetric heap ----
  m.def("malloc", [](size_t bytes, size_t align) {
    return call([&] {
      void* p = gshmem_align(align, bytes);
      if (!p && bytes) {
        throw gshmem::Error(GSHMEM_ERROR_OUT_OF_MEMORY, "gshmem.empty", "shape",
                            "the symmetric heap has no room for " + std::to_string(bytes) +
                                " bytes (GSHMEM_SYMMETRIC_SIZE sets its size)");
      }
      return reinterpret_cast<Addr>(p);
    });
  });
  m.def("free", [](Addr p) { call([&] { gshmem_free(at<void>(p)); }); });
  m.def("ptr", [](Addr p, int pe) { return reinterpret_cast<Addr>(gshmem_ptr(at<void>(p), pe)); });
  m.def("view_bytes", &view_bytes);

  // ---- RMA, atomics, signals, ordering ----
  m.def("putmem", [](Addr dst, Addr src, size_t n, int pe, bool nbi) {
    call([&] {
      (nbi ? gshmem_putmem_nbi : gshmem_putmem)(at<void>(dst), at<const void>(src), n, pe);
    });
  });
  m.def("getmem", [](Addr dst, Addr src, size_t n, int pe, bool nbi) {
    call([&] {
      (nbi ? gshmem_getmem_nbi : gshmem_getmem)(at<void>(dst), at<const void>(src), n, pe);
    });
  });
  m.def("putmem_signal",
        [](Addr dst, Addr src, size_t n, Addr sig, uint64_t value, int op, int pe, bool nbi) {
          call([&] {
            (nbi ? gshmem_putmem_signal_nbi : gshmem_putmem_signal)(
                at<void>(dst), at<const void>(src), n, at<uint64_t>(sig), value, op, pe);
          });
        });
  m.def("putmem_on_stream", [](Addr dst, Addr src, size_t n, int pe, Addr stream) {
    check("gshmem_putmem_on_stream", call([&] {
            return gshmem_putmem_on_stream(at<void>(dst), at<const void>(src), n, pe,
                                           stream_of(stream));
          }));
  });
  m.def("getmem_on_stream", [](Addr dst, Addr src, size_t n, int pe, Addr stream) {
    check("gshmem_getmem_on_stream", call([&] {
            return gshmem_getmem_on_stream(at<void>(dst), at<const void>(src), n, pe,
                                           stream_of(stream));
          }));
  });
  m.def("putmem_signal_on_stream",
        [](Addr dst, Addr src, size_t n, Addr sig, uint64_t value, int op, int pe, Addr stream) {
          check("gshmem_putmem_signal_on_stream", call([&] {
                  return gshmem_putmem_signal_on_stream(at<void>(dst), at<const void>(src), n,
                                                        at<uint64_t>(sig), value, op, pe,
                                                        stream_of(stream));
                }));
        });
  m.def("signal_op", [](Addr sig, uint64_t value, int op, int pe) {
    call([&] { gshmem_signal_op(at<uint64_t>(sig), value, op, pe); });
  });
  m.def("signal_fetch", [](Addr sig) {
    return call([&] { return gshmem_signal_fetch(at<const uint64_t>(sig)); });
  });
  m.def("signal_wait_until", [](Addr sig, int cmp, uint64_t value) {
    return call([&] { return gshmem_signal_wait_until(at<uint64_t>(sig), cmp, value); });
  });
  m.def("signal_wait_until_on_stream", [](Addr sig, int cmp, uint64_t value, Addr stream) {
    check("gshmem_signal_wait_until_on_stream", call([&] {
            return gshmem_signal_wait_until_on_stream(at<uint64_t>(sig), cmp, value,
                                                      stream_of(stream));
          }));
  });
  m.def("quiet", [] { call([] { gshmem_quiet(); }); });
  m.def("quiet_on_stream", [](Addr stream) {
    check("gshmem_quiet_on_stream",
          call([&] { return gshmem_quiet_on_stream(stream_of(stream)); }));
  });
  m.def("fence", [] { call([] { gshmem_fence(); }); });
  m.def("barrier_all", [] { call([] { gshmem_barrier_all(); }); });
  m.def("sync_all", [] { call([] { gshmem_sync_all(); }); });
  m.def("barrier_all_on_stream", [](Addr stream) {
    check("gshmem_barrier_all_on_stream",
          call([&] { return gshmem_barrier_all_on_stream(stream_of(stream)); }));
  });
  // Atomic add (and fetch-add) on a 32- or 64-bit integer; `bits` and `is_signed` pick the type.
  m.def("atomic_fetch_add", [](Addr dst, int64_t value, int pe, int bits, bool fetch) {
    return call([&]() -> int64_t {
      if (bits == 32) {
        if (fetch) return gshmem_int32_atomic_fetch_add(at<int32_t>(dst), int32_t(value), pe);
        gshmem_int32_atomic_add(at<int32_t>(dst), int32_t(value), pe);
        return 0;
      }
      if (fetch) return gshmem_int64_atomic_fetch_add(at<int64_t>(dst), value, pe);
      gshmem_int64_atomic_add(at<int64_t>(dst), value, pe);
      return 0;
    });
  });

  // ---- Teams ----
  m.def("team_my_pe", [](int team) { return gshmem_team_my_pe(team); });
  m.def("team_n_pes", [](int team) { return gshmem_team_n_pes(team); });
  m.def("team_translate_pe",
        [](int src, int pe, int dst) { return gshmem_team_translate_pe(src, pe, dst); });
  m.def("team_split_strided", [](int parent, int start, int stride, int size) {
    gshmem_team_t t = GSHMEM_TEAM_INVALID;
    int rc = call(
        [&] { return gshmem_team_split_strided(parent, start, stride, size, nullptr, 0, &t); });
    if (rc != 0) check("gshmem_team_split_strided", GSHMEM_ERROR_INVALID_ARGUMENT);
    return t;
  });
  m.def("team_destroy", [](int team) { call([&] { gshmem_team_destroy(team); }); });
  m.def("team_sync",
        [](int team) { check("gshmem_team_sync", call([&] { return gshmem_team_sync(team); })); });

  // ---- Collectives ----
  auto dt = [](int d) { return gshmem_datatype_t(d); };
  auto op = [](int o) { return gshmem_redop_t(o); };
  m.def("allreduce",
        [=](int team, Addr dst, Addr src, size_t count, int dtype, int redop, Addr stream) {
          check("gshmem_allreduce", call([&] {
                  return gshmem_allreduce(team, at<void>(dst), at<const void>(src), count,
                                          dt(dtype), op(redop), stream_of(stream));
                }));
        });
  m.def("allgather", [=](int team, Addr dst, Addr src, size_t count, int dtype, Addr stream) {
    check("gshmem_allgather", call([&] {
            return gshmem_allgather(team, at<void>(dst), at<const void>(src), count, dt(dtype),
                                    stream_of(stream));
          }));
  });
  m.def("reducescatter",
        [=](int team, Addr dst, Addr src, size_t count, int dtype, int redop, Addr stream) {
          check("gshmem_reducescatter", call([&] {
                  return gshmem_reducescatter(team, at<void>(dst), at<const void>(src), count,
                                              dt(dtype), op(redop), stream_of(stream));
                }));
        });
  m.def("broadcast",
        [=](int team, Addr dst, Addr src, size_t count, int dtype, int root, Addr stream) {
          check("gshmem_broadcast", call([&] {
                  return gshmem_broadcast(team, at<void>(dst), at<const void>(src), count,
                                          dt(dtype), root, stream_of(stream));
                }));
        });
  m.def("alltoall", [=](int team, Addr dst, Addr src, size_t count, int dtype, Addr stream) {
    check("gshmem_alltoall", call([&] {
            return gshmem_alltoall(team, at<void>(dst), at<const void>(src), count, dt(dtype),
                                   stream_of(stream));
          }));
  });

  // ---- MoE ----
  m.def("moe_create",
        [](int max_tokens, int num_experts, int experts_per_token, int hidden, int dispatch_type,
           int combine_type, int scale_block, int team, double capacity_factor) {
          gshmem_moe_config_t c;
          gshmem_moe_config_init(&c);
          c.max_tokens = max_tokens;
          c.num_experts = num_experts;
          c.experts_per_token = experts_per_token;
          c.hidden = hidden;
          c.dispatch_type = gshmem_moe_dtype_t(dispatch_type);
          c.combine_type = gshmem_moe_dtype_t(combine_type);
          c.scale_block = scale_block;
          c.team = team;
          c.capacity_factor = capacity_factor;
          gshmem_moe_handle_t h = nullptr;
          check("gshmem_moe_create", call([&] { return gshmem_moe_create(&c, &h); }));
          return reinterpret_cast<Addr>(h);
        });
  m.def("moe_destroy", [](Addr h) {
    check("gshmem_moe_destroy", call([&] { return gshmem_moe_destroy(at<gshmem_moe_a2a>(h)); }));
  });
  m.def("moe_info", &moe_info);
  m.def("moe_last_overflow", &moe_overflow);
  m.def("moe_dispatch_send",
        [](Addr h, Addr x, Addr scales, Addr indices, Addr num_tokens, Addr stream) {
          check("gshmem_moe_dispatch_send", call([&] {
                  return gshmem_moe_dispatch_send(
                      at<gshmem_moe_a2a>(h), at<const void>(x), at<const float>(scales),
                      at<const int32_t>(indices), at<const int32_t>(num_tokens), stream_of(stream));
                }));
        });
  m.def("moe_dispatch_recv", [](Addr h, Addr stream) {
    gshmem_moe_expert_batch_t b{};
    check("gshmem_moe_dispatch_recv", call([&] {
            return gshmem_moe_dispatch_recv(at<gshmem_moe_a2a>(h), &b, stream_of(stream));
          }));
    return moe_batch(b);
  });
  m.def("moe_combine_send", [](Addr h, Addr y, Addr stream) {
    check("gshmem_moe_combine_send", call([&] {
            return gshmem_moe_combine_send(at<gshmem_moe_a2a>(h), at<const void>(y),
                                           stream_of(stream));
          }));
  });
  m.def("moe_combine_recv", [](Addr h, Addr out, Addr weights, Addr stream) {
    check("gshmem_moe_combine_recv", call([&] {
            return gshmem_moe_combine_recv(at<gshmem_moe_a2a>(h), at<void>(out),
                                           at<const float>(weights), stream_of(stream));
          }));
  });
}
