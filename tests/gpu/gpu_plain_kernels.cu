// A module without gshmem's device library (no default context in it): attaching it must fail
// with a message, not write anywhere (tests/gpu/gpu_module_test.cu).
extern "C" __global__ void plain_kernel(int* out) {
  if (out) out[0] = 1;
}
