{ [i] -> [i1, i2] : i1 = [i/4] and i2 = i % 4 }
