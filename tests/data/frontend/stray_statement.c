int main(void) {
  return 0;
}

for (i = 0; i < 10; i++)
  a[i] = 0;
