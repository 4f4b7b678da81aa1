"""What keeps the app fast under a class: caches of finished views and worker processes for training."""
