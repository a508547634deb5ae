// The public detmath functions: out-of-line wrappers of detmath_impl.h, compiled with the
// library's flags (chunkforge/detmath.h).
#include "chunkforge/detmath.h"

#include "detmath_impl.h"

namespace chunkforge::detmath {

double log(double x) { return impl::log(x); }
double exp(double y) { return impl::exp(y); }
double pow(double x, double a) { return impl::pow(x, a); }

}  // namespace chunkforge::detmath
