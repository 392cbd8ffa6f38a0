// tilecomm::Error: the one C++ exception type of tilecomm, with a code.
//
// Thrown by the C++ faces (PTO instructions inside kernels, launch, the
// workspace managers, the communicator). The C API never throws: it ends the
// job with a message instead, as the OpenSHMEM specification leaves it no
// error return.
#pragma once

#include <stdexcept>
#include <string>

namespace tilecomm {

enum class ErrorCode { InvalidUsage, Timeout, Transport, Remote, System };

const char* to_string(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace tilecomm
