[N] -> { [i, j] : 0 <= i < N and 0 <= j <= i }
