"""Helpers the book's chapters share (:mod:`.helpers`)."""
