// matrix.cpp - a small dense matrix.

#include <cstddef>
#include <stdexcept>
#include <vector>

namespace linalg {

constexpr std::size_t kMaxDim = 4096;

// A row-major matrix of doubles.
class Matrix {
 public:
  // A rows x cols matrix of zeros.
  Matrix(std::size_t rows, std::size_t cols)
      : rows_(rows), cols_(cols), data_(rows * cols, 0.0) {
    if (rows > kMaxDim || cols > kMaxDim) {
      throw std::invalid_argument("matrix too large");
    }
  }

  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }

  double& at(std::size_t r, std::size_t c);

  Matrix operator*(const Matrix& other) const;

 private:
  std::size_t index(std::size_t r, std::size_t c) const {
    return r * cols_ + c;
  }

  std::size_t rows_;
  std::size_t cols_;
  std::vector<double> data_;
};

template <typename T>
struct Pair {
  T first;
  T second;
};

double& Matrix::at(std::size_t r, std::size_t c) {
  if (r >= rows_ || c >= cols_) {
    throw std::out_of_range("matrix index");
  }
  return data_[index(r, c)];
}

Matrix Matrix::operator*(const Matrix& other) const {
  Matrix out(rows_, other.cols_);
  for (std::size_t i = 0; i < rows_; ++i) {
    for (std::size_t j = 0; j < other.cols_; ++j) {
      double sum = 0.0;
      for (std::size_t k = 0; k < cols_; ++k) {
        sum += data_[index(i, k)] * other.data_[other.index(k, j)];
      }
      out.at(i, j) = sum;
    }
  }
  return out;
}

namespace {
int helper() { return 42; }
}  // namespace

}  // namespace linalg
