from util import helper


def main():
    result=helper( 21 )
    print( result )


if __name__=="__main__":
    main()
