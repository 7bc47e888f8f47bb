"""Text sources that several experiments share: not an experiment (it declares none).

- ``haystack``: NLTK's Gutenberg corpus, its sentences (a Punkt splitter), and haystacks cut
  from it, sequential or shuffled, with needles inserted at a depth;
- ``wordnet``: WordNet's vocabulary;
- ``fitting``: the largest size of a stimulus whose prompt fits a token budget.

An experiment uses these; no experiment imports another's modules.
"""
